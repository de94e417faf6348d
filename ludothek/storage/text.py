"""Checking text from outside before it reaches the database.

A lone UTF-16 surrogate (``"\\ud800"``, valid in JSON) cannot be encoded as
UTF-8, and PostgreSQL's text columns refuse the NUL character: either would
fail deep in a driver as a 500.  Refusing them at the store's door turns
them into a clear 400 on every database alike.
"""

from __future__ import annotations

from .errors import BadRequest


def check_text(value: object, what: str, max_length: int | None = None) -> str:
    """``value`` if it is a string that every database can store; `BadRequest` otherwise."""
    if not isinstance(value, str):
        raise BadRequest(f"{what} must be text", code_key="bad_text", what=what)
    if "\x00" in value:
        raise BadRequest(f"{what} must not contain the NUL character", code_key="bad_text", what=what)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadRequest(f"{what} is not valid Unicode text (a lone surrogate)", code_key="bad_text",
                         what=what) from None
    if max_length is not None and len(value) > max_length:
        raise BadRequest(f"{what} has more than {max_length} characters", code_key="bad_text", what=what)
    return value
