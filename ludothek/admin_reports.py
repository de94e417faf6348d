"""``ludothek admin reports``: the queue of reported chat messages, for the site's operators.

Lists the open reports oldest first (``--all``: the resolved ones too), each with
the game, the move number, who wrote the message, what it says, who reported it
and why, and how many reports the message has; ``--json`` prints them as JSON
lines for other tools; ``--resolve ID`` marks a report as dealt with.  Message
texts are printed with ``repr``-style escapes for anything a terminal would
act on, so a report can never move the operator's cursor or change their
terminal (control characters never reach the database, but the output does
not rely on it).
"""

from __future__ import annotations

import json
import sys
from typing import TextIO

from ludothek.services.community.chat import ReportInfo


def _inert(text: str) -> str:
    """The text with every non-printable character escaped (a terminal shows it, never obeys it)."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def format_report(r: ReportInfo) -> str:
    state = f"resolved {r.resolved_at:%Y-%m-%d %H:%M}" if r.resolved_at else "open"
    return (f"#{r.id} [{state}] {r.created_at:%Y-%m-%d %H:%M} UTC  {_inert(r.reporter)} reports {r.reason}"
            f" ({r.reports} report{'s' if r.reports != 1 else ''} on this message)\n"
            f"    game {r.game_id} ({r.game}), move {r.seq}, message {r.message_id} by {_inert(r.author)}"
            f" at {r.written_at:%Y-%m-%d %H:%M} UTC:\n"
            f"    {_inert(r.text)}")


def reports(db: str | None, include_resolved: bool = False, as_json: bool = False, resolve: int | None = None,
            out: TextIO | None = None) -> int:
    """Print the reports queue (or resolve one); exit status 1 for an unknown report to resolve."""
    from ludothek.portal.settings import Settings
    from ludothek.services import Site
    from ludothek.storage import NotFound, make_engine, migrate

    out = out or sys.stdout
    engine = make_engine(Settings.from_env(db).db_url)
    try:
        migrate(engine)
        site = Site(engine)
        if resolve is not None:
            try:
                site.chat.resolve_report(resolve)
            except NotFound as exc:
                print(f"ludothek: {exc.message}", file=sys.stderr)
                return 1
            print(f"report #{resolve} resolved", file=out)
            return 0
        found = site.chat.chat_reports(include_resolved=include_resolved)
    finally:
        engine.dispose()
    for r in found:
        print(json.dumps(r.to_json(), ensure_ascii=True) if as_json else format_report(r), file=out)
    if not found and not as_json:
        print("no reports" if include_resolved else "no open reports", file=out)
    return 0
