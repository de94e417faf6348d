"""Shared test helpers.

``needs(problem)`` skips a test whose service is missing, with the reason, or
fails it when ``LUDOTHEK_REQUIRE_SERVICES=1`` (CI), so a green CI run means the
PostgreSQL, Redis and browser tests really ran.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ludothek", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.load_profile("ludothek")

#: The browser tests' fixtures (``browser``, ``server``) for every test folder.
pytest_plugins = ["tests.browser_support"]

REQUIRE_SERVICES = os.environ.get("LUDOTHEK_REQUIRE_SERVICES") == "1"


def needs(problem: str | None) -> None:
    """Skip (or in CI fail) the calling test when ``problem`` says a service is missing."""
    if problem is None:
        return
    if REQUIRE_SERVICES:
        pytest.fail(f"required service missing: {problem}")
    pytest.skip(problem)
