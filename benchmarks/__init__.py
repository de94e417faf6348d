"""Benchmarks, run by ``make bench``.  Speed is measured here, never asserted in tests."""
