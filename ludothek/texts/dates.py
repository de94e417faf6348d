"""Dates and times as a person reads them: in their language and their time zone (Babel).

The one place that turns a moment into text for people (issue 30, item 8): the pages, the mails and
the texts of the API that are meant to be read all call `local_when`.  The API's machine fields stay
ISO 8601 in UTC; only what a person reads goes through here.  It lives with the texts, below every
other part of Ludothek, because the portal and the mail workers both need it.
"""

from __future__ import annotations

import zoneinfo
from datetime import UTC, datetime, tzinfo
from typing import Literal

from babel.dates import format_date, format_time, get_datetime_format

#: What of a moment to show: the day, the time of day, or both.
Part = Literal["datetime", "date", "time"]


def zone(name: str | None) -> tzinfo:
    """The time zone named ``name`` (an IANA name such as Europe/Berlin); UTC if it is unknown."""
    if name:
        try:
            return zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            pass
    return UTC


def local_when(when: datetime, lang: str, timezone: str | None = None, part: Part = "datetime") -> str:
    """``when`` in ``timezone`` as people of ``lang`` write it: "29.11.2026, 11:30", "Nov 29, 2026, 11:30 AM".

    A naive ``when`` is read as UTC (the database hands SQLite's moments back without a zone).  The
    day in medium length (the month spelled in English, so that nobody mistakes 11/12 for 12/11),
    the time of day in hours and minutes.
    """
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    local = when.astimezone(zone(timezone))
    if part == "date":
        return str(format_date(local, format="medium", locale=lang))
    hours = str(format_time(local, format="short", locale=lang))
    if part == "time":
        return hours
    day = str(format_date(local, format="medium", locale=lang))
    return str(get_datetime_format("medium", locale=lang)).replace("{1}", day).replace("{0}", hours)


__all__ = ["Part", "local_when", "zone"]
