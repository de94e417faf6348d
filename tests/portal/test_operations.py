"""Operations: health, metrics, logs, shared rate limits, several server processes, durability settings."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from ludothek.devtools.processes import stop
from ludothek.devtools.services import REDIS, port_open
from ludothek.portal import create_app
from ludothek.portal.observe import TEXT_FORMAT, TextFormatter, configure_logging, scrape_lines
from ludothek.storage import make_engine
from tests.conftest import needs
from tests.portal.conftest import api_user, in_one_rate_window, make_settings, page_login
from tests.portal.server import free_port, wait_until_serving

REDIS_URL = f"redis://{REDIS[0]}:{REDIS[1]}/0"
ROOT = Path(__file__).resolve().parents[2]


def _metrics(client: Any) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    r = client.get("/metrics")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    body = r.content if isinstance(r.content, bytes) else r.text.encode()
    return {(name, tuple(sorted(labels.items()))): value for name, labels, value in scrape_lines(body)}


def _play_moves(client: Any, n: int) -> tuple[dict[str, str], dict[str, str], int]:
    a, b = api_user(client, "mia"), api_user(client, "max")
    gid = client.post("/api/games", json={"game": "toypig", "players": 2, "options": {"length": "long"}},
                      headers=a).json()["id"]
    assert client.post(f"/api/games/{gid}/join", headers=b).status_code == 200
    for _ in range(n):
        for who in (a, b):
            g = client.get(f"/api/games/{gid}?log=false", headers=who).json()
            if g["my_turn"]:
                r = client.post(f"/api/games/{gid}/actions", json={"action": "roll", "seq": g["seq"]}, headers=who)
                assert r.status_code == 200, r.text
                break
    return a, b, gid


# ----------------------------------------------------------------------------- health and metrics
def test_health_and_readiness(app: Any) -> None:
    with TestClient(app) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        assert client.get("/readyz").json() == {"status": "ready", "checks": {"database": "ok"}}
        # Redis configured but not answering: not ready, and it says what is missing.
        app.state.portal.settings.redis_url = "redis://127.0.0.1:1/0"
        r = client.get("/readyz")
        assert r.status_code == 503
        assert r.json()["status"] == "unready" and r.json()["checks"]["database"] == "ok"
        assert r.json()["checks"]["redis"].startswith("unreachable")


def test_operations_endpoints_are_declared(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    ready = paths["/readyz"]["get"]["responses"]
    assert ready["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/Readiness")
    assert ready["503"]["content"]["application/json"]["schema"]["$ref"].endswith("/Readiness")
    assert paths["/healthz"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/Health")
    assert "403" in paths["/metrics"]["get"]["responses"]


def test_metrics_only_for_the_operators_addresses(app: Any) -> None:
    with TestClient(app, client=("10.1.2.3", 40000)) as outsider:
        r = outsider.get("/metrics")
        assert r.status_code == 403 and r.json()["code"] == "forbidden"
    with TestClient(app, client=("127.0.0.1", 40000)) as client:
        _, _, gid = _play_moves(client, 3)
        m = _metrics(client)
    assert m[("ludothek_moves_total", ())] >= 3
    assert m[("ludothek_move_seconds_count", ())] >= 3
    route = (("method", "POST"), ("route", "/api/games/{game_id}/actions"), ("status", "200"))
    assert m[("ludothek_http_requests_total", route)] >= 3
    assert m[("ludothek_games", (("status", "running"),))] == 1
    assert m[("ludothek_games", (("status", "finished"),))] == 0
    assert ("ludothek_bot_queue", ()) in m and ("ludothek_outbox", ()) in m
    assert m[("ludothek_open_sockets", ())] == 0
    # Ids never become labels: one series per route template.
    assert not any(str(gid) in dict(labels).get("route", "") for _, labels in m)


def test_metrics_count_open_sockets(app: Any) -> None:
    with TestClient(app, client=("127.0.0.1", 40000)) as client:
        a, _, gid = _play_moves(client, 1)
        token = a["Authorization"].split()[1]
        with client.websocket_connect(f"/api/games/{gid}/live?token={token}") as ws:
            assert ws.receive_json()["type"] == "hello"
            assert _metrics(client)[("ludothek_open_sockets", ())] == 1
        deadline = time.monotonic() + 5
        while _metrics(client)[("ludothek_open_sockets", ())] != 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _metrics(client)[("ludothek_open_sockets", ())] == 0


def test_favicon(client: TestClient) -> None:
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"] == "image/x-icon"
    assert r.content[:4] == b"\x00\x00\x01\x00"  # an ICO file
    svg = client.get("/static/favicon.svg")
    assert svg.status_code == 200 and svg.text.startswith("<svg")
    page = client.get("/login").text
    assert 'rel="icon" href="/static/favicon.svg"' in page and 'href="/favicon.ico"' in page


# ----------------------------------------------------------------------------- logs
@contextmanager
def captured_logs(fmt: str, path: Path) -> Iterator[Path]:
    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    quiet = [logging.getLogger(name) for name in ("httpx", "httpx2")]  # the test client's own request lines
    levels = [q.level for q in quiet]
    for q in quiet:
        q.setLevel(logging.WARNING)
    configure_logging(fmt, "INFO", str(path))
    try:
        yield path
    finally:
        for q, level in zip(quiet, levels, strict=True):
            q.setLevel(level)
        for handler in list(root.handlers):
            if getattr(handler, "ludothek", False):
                root.removeHandler(handler)
                handler.close()
        root.handlers[:] = before[0]
        root.setLevel(before[1])


def test_json_access_log_one_line_per_request_without_secrets(app: Any, tmp_path: Path) -> None:
    with captured_logs("json", tmp_path / "log.jsonl") as path, TestClient(app) as client:
        a = api_user(client, "lena")
        token = a["Authorization"].split()[1]
        client.put("/api/me", headers=a)  # a 405 is logged like any request
        client.post("/api/tokens", json={"name": "lena", "password": "wrong-password-1"})
        client.post("/register", data={"name": "lena2", "password": "password-lena2", "csrf": "x"})
        client.get("/api/me", headers=a)
        client.get("/no/such/page?email=someone@example.org")
        with client.websocket_connect(f"/live/me?token={token}") as ws:
            ws.receive_json()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    access = [entry for entry in lines if entry["logger"] == "ludothek.access"]
    routes = [(e["method"], e["route"], e["status"]) for e in access]
    assert ("POST", "/api/users", 201) in routes
    assert ("POST", "/api/tokens", 401) in routes
    assert ("GET", "/api/me", 200) in routes
    assert ("GET", "-", 404) in routes  # an unknown path: neither the path nor its query is logged
    assert ("WS", "/live/me", 101) in routes
    for entry in access:
        assert entry["ms"] >= 0 and entry["level"] == "info" and "ts" in entry
    me = next(e for e in access if e["route"] == "/api/me" and e["status"] == 200)
    assert isinstance(me["user"], int)
    assert isinstance(next(e for e in access if e["route"] == "/live/me")["user"], int)
    text = "\n".join(json.dumps(entry) for entry in lines)
    from ludothek.devtools.logscan import leaks

    assert leaks(text) == []
    for secret in (token, "password-lena", "wrong-password-1", "someone@example.org", "ludothek_session"):
        assert secret not in text


def test_log_scanner_finds_what_it_looks_for() -> None:
    from ludothek.devtools.logscan import leaks

    assert leaks('{"msg": "user logged in"}') == []
    assert leaks('{"msg": "GET /password-reset/{token} 200 4.6ms", "route": "/password-reset/{token}"}') == []
    assert leaks('{"msg": "POST /api/password-reset 202 2.8ms"}') == []
    assert [kind for kind, _ in leaks("login with password-resetter failed")] == ["password"]
    found = leaks("\n".join([
        "token ldk_AbCdEfGhIjKlMnOpQrStUvWxYz012345 used",
        "Authorization: Bearer abc.def",
        "mail to anna@example.org failed",
        "Cookie: ludothek_session=eyJzaWQiOiJ4In0.abc",
        'body {"name": "x", "password": "password-anna"}',
    ]))
    assert [kind for kind, _ in found] == ["token", "bearer", "e-mail address", "cookie", "password"]


def test_text_logs_by_default(tmp_path: Path) -> None:
    with captured_logs("text", tmp_path / "log.txt") as path:
        logging.getLogger("ludothek.test").info("hello %s", "world")
    assert "INFO ludothek.test" in path.read_text() and "hello world" in path.read_text()
    with pytest.raises(ValueError, match="LUDOTHEK_LOG_FORMAT"):
        configure_logging("yaml")


def test_text_log_times_are_the_standard_formatters() -> None:
    """The text formatter writes each second's time once; every line reads as the standard one's."""
    mine, standard = TextFormatter(), logging.Formatter(TEXT_FORMAT)
    for created in (1_700_000_000.0, 1_700_000_000.999, 1_700_000_001.0005, 1_700_000_000.5, time.time()):
        record = logging.LogRecord("ludothek.test", logging.INFO, __file__, 0, "GET %s", ("/x",), None)
        record.created, record.msecs = created, float(int((created - int(created)) * 1000))
        assert mine.format(record) == standard.format(record)
        assert mine.formatTime(record, "%Y") == standard.formatTime(record, "%Y")


# ----------------------------------------------------------------------------- rate limits
def test_moves_are_rate_limited_per_user(db_url: str) -> None:
    app = create_app(make_settings(db_url, limit_rules={"move_user": "2/minute"}))
    with TestClient(app) as client:
        a, b = api_user(client, "rita"), api_user(client, "rolf")
        gid = client.post("/api/games", json={"game": "toypig", "players": 2, "options": {"length": "long"}},
                          headers=a).json()["id"]
        client.post(f"/api/games/{gid}/join", headers=b)
        in_one_rate_window(60)  # every counted move, the page's too, within one minute of the counters
        made = {"rita": 0, "rolf": 0}
        for _ in range(10):
            g = client.get(f"/api/games/{gid}", headers=a).json()
            name, mover = ("rita", a) if g["my_turn"] else ("rolf", b)
            r = client.post(f"/api/games/{gid}/actions", json={"action": "roll", "seq": g["seq"]}, headers=mover)
            if r.status_code == 429:
                break
            assert r.status_code == 200, r.text
            made[name] += 1
        assert r.status_code == 429 and made[name] == 2  # the third move of one user in a minute
        assert int(r.headers["Retry-After"]) >= 1 and r.json()["code"] == "too_many_attempts"
        assert client.get(f"/api/games/{gid}", headers=a).json()["seq"] == g["seq"]  # nothing stored
        # The page's click is limited alike, with the reason on the board.
        csrf = page_login(client, "rolf", register=False) if name == "rolf" else page_login(client, "rita", False)
        page = client.post(f"/games/{gid}/act", data={"csrf": csrf, "action": "roll", "seq": str(g["seq"])},
                           headers={"HX-Request": "true"})
        assert page.status_code == 429 and "Retry-After" in page.headers


def _serve(db_url: str, port: int, env: dict[str, str], output: Path, workers: int = 1) -> subprocess.Popen[bytes]:
    """``ludothek serve`` in a subprocess; what it prints goes to the file ``output`` (a pipe nobody reads
    would fill up with its log lines and stop it)."""
    code = "import sys; from ludothek.cli import main; sys.exit(main(sys.argv[1:]))"
    with output.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-c", code, "serve", "--db", db_url, "--port", str(port), "--redis", REDIS_URL,
             "--workers", str(workers)],
            # No bot workers unless a test plays against a bot: starting them costs CPU the servers'
            # first requests then wait for on a loaded machine.
            env={**os.environ, "LUDOTHEK_SECRET": "ops-test-secret", "LUDOTHEK_BOT_DELAY": "0",
                 "LUDOTHEK_BOT_WORKERS": "0", **env},
            stdout=out, stderr=out, cwd=ROOT,
        )


@pytest.mark.redis
def test_rate_limits_are_shared_by_two_server_processes(tmp_path: Path) -> None:
    needs(None if port_open(REDIS) else f"Redis is not reachable on {REDIS[0]}:{REDIS[1]}")
    db = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    env = {"LUDOTHEK_RATE_LIMIT_RULES": "move_user=4/minute,login_pair=3/15minutes,register=50/hour",
           "LUDOTHEK_BOT_WORKERS": "1"}  # one game against a bot
    ports = [free_port(), free_port()]
    procs = [_serve(db, port, env, tmp_path / f"serve-{port}.log") for port in ports]
    try:
        bases = [f"http://127.0.0.1:{p}" for p in ports]
        for proc, base in zip(procs, bases, strict=True):
            wait_until_serving(proc, base)
        with httpx.Client(base_url=bases[0]) as one, httpx.Client(base_url=bases[1]) as two:
            # Logins: three wrong passwords spread over both servers use up the (name, address) pair.
            one.post("/api/users", json={"name": "sina", "password": "password-sina"})
            codes = [c.post("/api/tokens", json={"name": "sina", "password": "not-it-123"}).status_code
                     for c in (one, two, one, two)]
            assert codes == [401, 401, 401, 429]
            # Moves: four moves of one user, alternating between the servers, then 429 on either.
            a = {"Authorization": "Bearer " + one.post(
                "/api/users", json={"name": "solo", "password": "password-solo"}).json()["token"]}
            statuses: list[int] = []
            gid = None
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and 429 not in statuses:
                if gid is None:  # a game against a bot (the servers know the real games only)
                    gid = one.post("/api/games", json={"game": "machikoro", "players": 2,
                                                       "seats": [{"kind": "me"}, {"kind": "bot"}]},
                                   headers=a).json()["id"]
                g = one.get(f"/api/games/{gid}?log=false", headers=a).json()
                if g["status"] != "running":
                    gid = None
                    continue
                if not g["my_turn"] or not g["legal"]:
                    time.sleep(0.02)
                    continue
                server = (one, two)[len(statuses) % 2]
                r = server.post(f"/api/games/{gid}/actions", json={"action": g["legal"][0]["action"], "seq": g["seq"]},
                                headers=a)
                statuses.append(r.status_code)
                if r.status_code == 429:
                    assert int(r.headers["Retry-After"]) >= 1
                    assert one.get(f"/api/games/{gid}?log=false", headers=a).json()["seq"] == g["seq"]
            assert statuses == [200, 200, 200, 200, 429], statuses
    finally:
        for proc in procs:
            stop(proc)


@pytest.mark.redis
def test_serve_with_two_workers_sums_the_metrics_of_both(tmp_path: Path) -> None:
    needs(None if port_open(REDIS) else f"Redis is not reachable on {REDIS[0]}:{REDIS[1]}")
    port = free_port()
    log = tmp_path / "serve.jsonl"
    proc = _serve(f"sqlite:///{tmp_path / 'w.sqlite3'}", port,
                  {"LUDOTHEK_LOG_FORMAT": "json", "LUDOTHEK_LOG_FILE": str(log),
                   "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics")}, tmp_path / "serve.log", workers=2)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(proc, base)
        for _ in range(30):
            assert httpx.get(base + "/healthz").status_code == 200  # a new connection each: either worker
        scraped = {(n, tuple(sorted(lab.items()))): v for n, lab, v in scrape_lines(httpx.get(base + "/metrics").content)}
        assert scraped[("ludothek_http_requests_total",
                        (("method", "GET"), ("route", "/healthz"), ("status", "200")))] == 30
        served = {json.loads(line)["pid"] for line in log.read_text().splitlines()
                  if '"route": "/healthz"' in line}
        workers = {int(p) for p in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()}
        assert served <= workers and len(workers) >= 2
        # Several server processes need Redis.
        lone = subprocess.run([sys.executable, "-m", "ludothek.cli", "serve", "--db", "sqlite://", "--workers", "2",
                               "--port", str(free_port())], capture_output=True, text=True, cwd=ROOT,
                              env={k: v for k, v in os.environ.items() if k != "LUDOTHEK_REDIS"}, timeout=60)
        assert lone.returncode != 0 and "need Redis" in lone.stderr
    finally:
        stop(proc)


# ----------------------------------------------------------------------------- durability and first contact
def test_sqlite_synchronous_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def synchronous(engine: Any) -> int:
        with engine.connect() as conn:
            return int(conn.exec_driver_sql("PRAGMA synchronous").scalar())

    url = f"sqlite:///{tmp_path / 'd.sqlite3'}"
    assert synchronous(make_engine(url)) == 1  # NORMAL
    with make_engine(url).connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    monkeypatch.setenv("LUDOTHEK_SQLITE_SYNC", "full")
    assert synchronous(make_engine(url)) == 2  # FULL
    monkeypatch.setenv("LUDOTHEK_SQLITE_SYNC", "sometimes")
    with pytest.raises(ValueError, match="LUDOTHEK_SQLITE_SYNC"):
        make_engine(url)
    assert sqlite3.connect(tmp_path / "d.sqlite3").execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_make_run_honours_host_and_port() -> None:
    dry = subprocess.run(["make", "-n", "run", "HOST=0.0.0.0", "PORT=8080"], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert "ludothek serve --host 0.0.0.0 --port 8080" in dry
    plain = subprocess.run(["make", "-n", "run"], capture_output=True, text=True, cwd=ROOT, check=True,
                           env={k: v for k, v in os.environ.items() if k not in ("HOST", "PORT")}).stdout
    assert "--host 127.0.0.1 --port 8000" in plain


@pytest.mark.redis
def test_hot_path_limits_count_in_batches_across_processes() -> None:
    """Two processes' limiters (one Redis): a move costs a tenth of a Redis call, and the shared count
    is exact to within a batch per process; a small limit is counted exactly."""
    needs(None if port_open(REDIS) else f"Redis is not reachable on {REDIS[0]}:{REDIS[1]}")
    from ludothek.portal.limits import BATCH, RateLimits
    from ludothek.storage import TooManyAttempts

    namespace = f"test-batches-{os.getpid()}-{time.time_ns()}"
    rules = {"move_user": "200/minute", "move_addr": "4/minute"}
    one, two = (RateLimits(REDIS_URL, rules, namespace=namespace) for _ in range(2))
    allowed = 0
    try:
        for i in range(400):
            (one, two)[i % 2].hit("move_user", "7")
            allowed += 1
    except TooManyAttempts as exc:
        assert exc.retry_after >= 1
    assert 200 - BATCH < allowed <= 200 + 2 * (BATCH - 1), allowed
    with pytest.raises(TooManyAttempts):  # refused at once now, in both processes, without asking Redis
        one.hit("move_user", "7")
    with pytest.raises(TooManyAttempts):
        two.hit("move_user", "7")
    for i in range(4):
        (one, two)[i % 2].hit("move_addr", "10.0.0.1")
    with pytest.raises(TooManyAttempts):
        two.hit("move_addr", "10.0.0.1")
