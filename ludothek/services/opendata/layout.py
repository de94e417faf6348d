"""What one month's export holds, and the names in it.

An export is one uncompressed tar archive, ``ludothek-games-YYYY-MM.tar``, holding a folder of the
same name with three files:

- ``games.jsonl.gz``: one game record per line (``ludothek-record/1``, the format of a game's
  record download), gzip-compressed; games in the order they finished.
- ``SHA256SUMS``: the SHA-256 of the two other files, in the form ``sha256sum -c`` reads.
- ``README.md``: the format, the fields, the licence and how to verify (`readme`).

The archive is deterministic: the same games with the same names give the same bytes (gzip without
a time stamp, tar members dated at the end of the month), so its SHA-256 names its content.

Players who opted out appear under a pseudonym (`pseudonym`): an HMAC of their user id with a secret
of this site, the same in every month's export and not reversible without that secret.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from datetime import UTC, datetime

#: A month as the exports name it.
MONTH_RE = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")
#: The name of the archive (and of the folder inside it) of ``month``.
ARCHIVE_STEM = "ludothek-games-{month}"
GAMES_FILE = "games.jsonl.gz"
SUMS_FILE = "SHA256SUMS"
README_FILE = "README.md"
#: The prefix of a pseudonym: ``#`` is no character of a user name, so no account can pose as one.
PSEUDONYM_PREFIX = "anon#"
#: The licence the records are published under (a ruling, docs/open_data.md).
LICENCE = "CC0 1.0 Universal (public domain dedication): https://creativecommons.org/publicdomain/zero/1.0/"


def month_of(when: datetime) -> str:
    """``YYYY-MM`` of ``when`` in UTC."""
    return when.astimezone(UTC).strftime("%Y-%m")


def month_start(month: str) -> datetime:
    """The first moment of ``month`` (UTC); `ValueError` for anything but ``YYYY-MM``."""
    m = MONTH_RE.match(month)
    if m is None:
        raise ValueError(f"a month is YYYY-MM, not {month!r}")
    return datetime(int(m.group(1)), int(m.group(2)), 1, tzinfo=UTC)


def next_month(month: str) -> str:
    start = month_start(month)
    return f"{start.year + (start.month == 12):04d}-{start.month % 12 + 1:02d}"


def archive_name(month: str) -> str:
    return ARCHIVE_STEM.format(month=month) + ".tar"


def pseudonym(secret: str, user_id: int) -> str:
    """The name an opted-out player has in every export: ``anon#`` and 16 hex digits of an HMAC-SHA256.

    Keyed with the site's own export secret (kept in the database), so it is stable across months and
    exports, and nobody without that secret can tell which account is behind it (nor test a guess).
    """
    digest = hmac.new(secret.encode(), f"ludothek-export-user:{user_id}".encode(), hashlib.sha256).hexdigest()
    return PSEUDONYM_PREFIX + digest[:16]


def readme(month: str, games: int, games_sha256: str, site: str) -> str:
    """The README inside the export: format, fields, licence, and how to verify it."""
    return f"""# Ludothek games of {month}

The finished, rated games of {site} that ended in {month} (UTC): {games} game{'s' if games != 1 else ''}.

## Files

- `{GAMES_FILE}`: one game record per line (JSON, UTF-8), gzip-compressed, in the order the games ended.
- `{SUMS_FILE}`: the SHA-256 of the files; check them with `sha256sum -c {SUMS_FILE}`.
- `{README_FILE}`: this file.

SHA-256 of `{GAMES_FILE}`: `{games_sha256}`

## A record

Each line is a record in the format `ludothek-record/1`, the same as a game's record download on the site:

- `format`: `"ludothek-record/1"`.
- `game`: the game (`machikoro`, `rolltheages`, `snowdonia`, `carpediem`).
- `rules_version`: the version of the rules the game was played with.
- `players`: the number of seats.
- `options`: the game's options, as chosen when it was created.
- `actions`: every entry of the game in order: `{{"seat": 0, "action": "..."}}` for a seat's decision,
  `{{"seat": "chance", "action": "..."}}` for a chance outcome (a die roll, a card drawn), and
  `{{"seat": N, "action": "undo"}}` where a player took their last action back.
- `result`: the final result, one entry per seat: `seat`, `rank` (1 is best; equal ranks are ties),
  `score` and the game's own details.  A player who timed out or resigned is placed last and carries
  `"left": "timed_out"` or `"left": "resigned"` (a bot played their seat on to the end).
- `meta.id`: the game's number on the site; `meta.players`: the seats' names; `meta.bots`: the seats
  a bot played at the end; `meta.finished_at`: when the game ended (UTC, ISO 8601).

Names are the players' user names, except for players who chose not to be named in exports: they
appear as `anon#` and 16 hexadecimal digits, the same in every month's export, from which their account
cannot be told.  Bots are named `Bot N`; a bot that played on for a person is `NAME (Bot)`.

## Verify

Replay every record to its stored result with the `ludothek` command of Ludothek (its source is open):

    ludothek dump verify {ARCHIVE_STEM.format(month=month)}.tar

It checks the checksums, replays every game with the game's rules and compares the result; it names
every game that differs and every line that is not a record, and exits with status 1 if there is any.

## Licence

The game records are published under {LICENCE}.  Please name Ludothek as the source if you publish
results made from them.
"""


def sums(files: dict[str, str]) -> str:
    """``SHA256SUMS``: ``<sha256>  <name>`` lines, as ``sha256sum`` writes them."""
    return "".join(f"{digest}  {name}\n" for name, digest in sorted(files.items()))
