"""Every ``LUDOTHEK_*`` setting the code reads is in docs/operations.md's settings table (issue 30, item 11).

The check greps the package for ``LUDOTHEK_`` names, so a setting added without a line in the table
fails here; and the README says where mail goes without SMTP (the sender's real default folder).
"""

from __future__ import annotations

import re
from pathlib import Path

import ludothek
from ludothek.portal.settings import Settings
from ludothek.workers.mail import DEFAULT_MAIL_DIR

ROOT = Path(ludothek.__file__).parent.parent
NAME = re.compile(r"LUDOTHEK_[A-Z0-9_]*[A-Z0-9]")


def settings_in_code() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "ludothek").rglob("*.py"):
        names |= set(NAME.findall(path.read_text(encoding="utf-8")))
    return names


def settings_table() -> str:
    """The rows of the first table under "## Running it" in docs/operations.md."""
    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    section = text.split("## Running it", 1)[1].split("\n## ", 1)[0]
    return "\n".join(line for line in section.splitlines() if line.startswith("|"))


def test_the_code_reads_settings_at_all() -> None:
    assert {"LUDOTHEK_DB", "LUDOTHEK_SMTP_URL", "LUDOTHEK_MAIL_INTERVAL", "LUDOTHEK_MAIL_FROM"} <= settings_in_code()


def test_every_setting_the_code_reads_is_in_the_operations_table() -> None:
    table = settings_table()
    documented = set(NAME.findall(table))
    missing = sorted(settings_in_code() - documented)
    assert not missing, f"add these to docs/operations.md's settings table: {missing}"


def test_the_readme_says_where_mail_goes_without_smtp() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    folder = DEFAULT_MAIL_DIR.as_posix() + "/"
    assert Settings(db_url="sqlite://").mail_dir.as_posix() + "/" == folder  # the portal's default is the same
    assert "LUDOTHEK_SMTP_URL" in readme and f"`{folder}`" in readme, readme
