"""Find secrets in logs: API tokens, bearer credentials, cookies, e-mail addresses, passwords.

The portal never logs a request's path with its ids, its query string, a header, a cookie or a
body (``ludothek.portal.observe``), so none of these should ever appear.  The test suite writes
every log line of its run (its own and those of the servers it starts) to one file and scans it
when it ends (``tests/conftest.py``); ``python -m ludothek.devtools.logscan FILE...`` scans any log.
"""

from __future__ import annotations

import re
import sys

#: What a leak looks like, checked in this order on every line.
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("token", re.compile(r"ldk_[A-Za-z0-9_-]{16,}")),
    ("bearer", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]+")),
    ("e-mail address", re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")),
    ("cookie", re.compile(r"(?i)ludothek_session|\bset-cookie\b|\bcookie:")),
    # The test suite's passwords are "password-<name>"; a body or form field would show as password=/":".
    # The route templates /password-reset and /password-reset/{token} are not passwords.
    ("password", re.compile(r"(?i)password-(?!reset\b)[A-Za-z0-9_.-]+|\"password\"\s*:\s*\"|\bpassword=[^&\s]")),
)


def leaks(text: str) -> list[tuple[str, str]]:
    """``(kind, line)`` for every line of ``text`` that holds a secret (one entry per line)."""
    found: list[tuple[str, str]] = []
    for line in text.splitlines():
        for kind, pattern in PATTERNS:
            if pattern.search(line):
                found.append((kind, line[:300]))
                break
    return found


def main(paths: list[str]) -> int:
    bad = 0
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for kind, line in leaks(f.read()):
                print(f"{path}: {kind}: {line}")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
