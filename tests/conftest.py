"""Shared test helpers.

``needs(problem)`` skips a test whose service is missing, with the reason, or
fails it when ``LUDOTHEK_REQUIRE_SERVICES=1`` (CI), so a green CI run means the
PostgreSQL, Redis and browser tests really ran.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ludothek", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.load_profile("ludothek")

#: The browser tests' fixtures (``browser``, ``server``) for every test folder.
pytest_plugins = ["tests.browser_support"]

REQUIRE_SERVICES = os.environ.get("LUDOTHEK_REQUIRE_SERVICES") == "1"

#: Turns are handed on at once unless a test asks for a grace period (`ludothek.services.handover`): most
#: tests play several seats in quick succession.  Servers the tests start inherit it.
os.environ.setdefault("LUDOTHEK_HANDOVER_SECONDS", "0")
# Hundreds of applications start in a run; each would render its first pages once (`ludothek.portal.warmup`).
os.environ.setdefault("LUDOTHEK_WARM_UP", "off")


def needs(problem: str | None) -> None:
    """Skip (or in CI fail) the calling test when ``problem`` says a service is missing."""
    if problem is None:
        return
    if REQUIRE_SERVICES:
        pytest.fail(f"required service missing: {problem}")
    pytest.skip(problem)


# ----------------------------------------------------------------------------- browser tests on a busy machine
#: A real browser against a real server depends on timing that a loaded 2-core machine can stretch past
#: any wait (a live update, a refresh under way).  Each browser test may run twice more after a failure;
#: pytest's summary lists every rerun ("R"), so a test that keeps needing one is seen and fixed.
BROWSER_RERUNS = 2


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("browser") is not None and item.get_closest_marker("flaky") is None:
            item.add_marker(pytest.mark.flaky(reruns=BROWSER_RERUNS))


# ----------------------------------------------------------------------------- the logs of the whole run
#: Every log line of this run, the test process's own and those of the servers it starts
#: (they inherit ``LUDOTHEK_LOG_FILE``), is written here and scanned for secrets at the end.
RUN_LOG = Path(__file__).resolve().parents[1] / "test-artifacts" / "logs" / f"pytest-{os.getpid()}.log"


def pytest_configure(config: pytest.Config) -> None:
    from ludothek.portal.observe import JsonFormatter

    RUN_LOG.parent.mkdir(parents=True, exist_ok=True)
    RUN_LOG.write_text("")
    os.environ["LUDOTHEK_LOG_FILE"] = str(RUN_LOG)
    handler = logging.FileHandler(RUN_LOG, encoding="utf-8")
    handler.setFormatter(JsonFormatter())
    handler.setLevel(logging.INFO)
    logging.getLogger().addHandler(handler)
    # The portal's own INFO lines (one per request) are what might leak: record them all.
    logging.getLogger("ludothek").setLevel(logging.INFO)
    # aiosmtpd, the tests' stand-in mail server, logs every recipient address at INFO by design;
    # it is not part of the portal, so only its warnings are recorded.
    logging.getLogger("mail.log").setLevel(logging.WARNING)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The log scan: no password, token, cookie or e-mail address in any log line of the run."""
    from ludothek.devtools.logscan import leaks

    if not RUN_LOG.exists():
        return
    found = leaks(RUN_LOG.read_text(encoding="utf-8", errors="replace"))
    if found:
        lines = "\n".join(f"  {kind}: {line}" for kind, line in found[:20])
        session.config.get_terminal_writer().line(
            f"LOG SCAN FAILED: {len(found)} log line(s) of this run hold secrets ({RUN_LOG}):\n{lines}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    else:
        session.config.get_terminal_writer().line(
            f"log scan: {sum(1 for _ in RUN_LOG.open(encoding='utf-8', errors='replace'))} log lines, "
            "no password, token, cookie or e-mail address")
