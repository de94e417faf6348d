"""Notification channels (issue 30): one file per channel, the seam in `base`."""
