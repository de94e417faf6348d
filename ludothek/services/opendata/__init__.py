"""Open data (issue 32): monthly exports of finished, rated games, the players' opt-out, the checker.

- `layout`: what an export holds (file names, the README, pseudonyms) and how months are named.
- `exports`: `OpenData`, the service: which months are due, the claim in the database, writing a
  month's archive so that a partial file is never published, the list the site shows, the opt-out.
- `dumpcheck`: reading an export (the archive, or its ``games.jsonl.gz``) and replaying every record
  to the result stored with it (``ludothek dump verify FILE``).

docs/open_data.md describes the format for the people who download it.
"""

from __future__ import annotations

from .dumpcheck import DumpReport, verify_dump
from .exports import ExportInfo, LostClaim, OpenData
from .layout import month_of, pseudonym

__all__ = ["DumpReport", "ExportInfo", "LostClaim", "OpenData", "month_of", "pseudonym", "verify_dump"]
