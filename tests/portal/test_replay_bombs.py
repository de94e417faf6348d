"""Replay bombs (issue 28, item 1): records that ask for much work are refused, bounded, gated and rate-limited.

Work is counted (entries replayed, bytes estimated), never timed; the benchmark
``benchmarks/bench_replay_bomb.py`` measures CPU, memory and others' latency.
"""

from __future__ import annotations

import gc
import json
import random
import tracemalloc
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ludothek import engine as eng
from ludothek.devtools.replaybomb import bomb
from ludothek.portal import create_app
from ludothek.services.community.history import History, ReplayBook
from ludothek.services.community.replaylimits import BookCache, RecordTooBig, ReplayLimits, replay_gate
from tests.portal.conftest import api_user, csrf_of, make_settings

#: The probe's record: 9,850 move/undo pairs after real moves, about 20,000 entries.
PROBE = bomb(real=100, pairs=9_850)


def _client(db: str, **settings: Any) -> TestClient:
    return TestClient(create_app(make_settings(db, **settings)))


def _history(client: TestClient) -> History:
    history: History = client.app.state.portal.site.history  # type: ignore[attr-defined]
    return history


def test_the_probes_record_is_refused_before_any_work(any_db: str) -> None:
    with _client(any_db) as client:
        head = api_user(client, "alice")
        r = client.post("/api/records/replay", json={"record": PROBE}, headers=head)
        assert r.status_code == 413 and r.json()["code"] == "record_too_big", r.text
        assert "at most 5000" in r.json()["detail"]
        # Within the form's 256 KB: 2,500 pairs are 5,000+ entries, refused the same way, translated.
        visitor = TestClient(client.app)
        token = csrf_of(visitor)
        text = json.dumps(bomb(real=100, pairs=2_500), separators=(",", ":")).encode()
        assert len(text) < 256 * 1024
        r = visitor.post("/replays/import", data={"csrf": token}, files={"file": ("bomb.json", text)},
                         headers={"Accept-Language": "de"})
        assert r.status_code == 413 and "höchstens 5000" in r.text, r.text[:3000]
        # Few entries but more undos than any game has.
        undos = bomb(real=100, pairs=1_200)
        r = client.post("/api/records/replay", json={"record": undos}, headers=head)
        assert r.status_code == 413 and "undos" in r.json()["detail"]
        assert _history(client).import_work == 0  # nothing was replayed


def test_a_bomb_within_the_bounds_replays_linearly_and_correctly(any_db: str) -> None:
    with _client(any_db) as client:
        head = api_user(client, "alice")
        rec = bomb(real=100, pairs=900)
        r = client.post("/api/records/replay", json={"record": rec, "seat": 0}, headers=head)
        assert r.status_code == 200, r.text
        assert r.json()["view"] == json.loads(json.dumps(eng.replay(rec).view(0)))
        # One pass of the engine and one of the book: each entry replayed twice, nothing more.
        assert _history(client).import_work == 2 * len(rec["actions"])
        # Further steps of the same record replay nothing again.
        r = client.post("/api/records/replay", json={"record": rec, "step": 5}, headers=head)
        assert r.status_code == 200 and _history(client).import_work == 2 * len(rec["actions"])


def test_the_cpu_budget_stops_a_replay_early(any_db: str) -> None:
    with _client(any_db, replay_cpu_seconds=0.0) as client:
        head = api_user(client, "alice")
        rec = bomb(real=100, pairs=900)
        r = client.post("/api/records/replay", json={"record": rec}, headers=head)
        assert r.status_code == 413 and "to replay" in r.json()["detail"], r.text
        assert _history(client).import_work < 100  # stopped at once, not after 1,900 entries
        token = csrf_of(client)
        r = client.post("/replays/import", data={"csrf": token, "record": json.dumps(rec)})
        assert r.status_code == 413 and "seconds to replay" in r.text


def test_the_api_needs_a_login_and_records_are_rate_limited(any_db: str) -> None:
    rules = {"replay_user": "3/minute", "replay_addr": "5/minute", "replay_visitor": "2/minute"}
    with _client(any_db, limit_rules=rules) as client:
        records = [bomb(real=20, pairs=2, salt=k) for k in range(6)]
        r = client.post("/api/records/replay", json={"record": records[0]})
        assert r.status_code == 401
        head = api_user(client, "alice")
        for rec in records[:3]:
            assert client.post("/api/records/replay", json={"record": rec}, headers=head).status_code == 200
        # Steps of a record already replayed are not counted.
        for step in range(5):
            r = client.post("/api/records/replay", json={"record": records[0], "step": step}, headers=head)
            assert r.status_code == 200
        r = client.post("/api/records/replay", json={"record": records[3]}, headers=head)
        assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
        # A visitor on the page form: a tighter limit per address (the address has used 3 of 5 too).
        visitor = TestClient(client.app)
        token = csrf_of(visitor)
        r = visitor.post("/replays/import", data={"csrf": token, "record": json.dumps(records[3])})
        assert r.status_code == 200, r.text
        r = visitor.post("/replays/import", data={"csrf": token, "record": json.dumps(records[4])})
        assert r.status_code == 200
        r = visitor.post("/replays/import", data={"csrf": token, "record": json.dumps(records[5])},
                         headers={"Accept-Language": "en"})
        assert r.status_code == 429 and "Retry-After" in r.headers and "replayed many records" in r.text


def test_a_full_gate_refuses_with_retry_after(any_db: str) -> None:
    with _client(any_db, replay_concurrency=1, replay_queue=0) as client:
        head = api_user(client, "alice")
        rec = bomb(real=20, pairs=2)
        with _history(client).gate.slot():  # another replay is running
            r = client.post("/api/records/replay", json={"record": rec}, headers=head)
            assert r.status_code == 429 and r.headers["Retry-After"] == "2" and "busy" in r.json()["detail"]
        assert client.post("/api/records/replay", json={"record": rec}, headers=head).status_code == 200


def test_gate_queue_is_bounded() -> None:
    gate = replay_gate(concurrency=1, queue=0)
    with gate.slot(), pytest.raises(Exception, match="busy"), gate.slot():
        pass
    with gate.slot():  # free again
        pass


class Blob:
    def __init__(self, size: int) -> None:
        self.size = size

    def size_estimate(self) -> int:
        return self.size


def test_book_cache_is_bounded_by_bytes_not_slots() -> None:
    cache: BookCache[Blob] = BookCache(1000)
    for k in range(10):
        cache.put(k, Blob(300))
        assert cache.bytes <= 1000
    assert len(cache) == 3 and cache.get(9) is not None and cache.get(0) is None
    cache.get(7)  # used: kept over 8
    cache.put("big", Blob(400))
    assert cache.get(7) is not None and cache.get(8) is None and cache.bytes == 1000
    cache.put("huge", Blob(5000))  # larger than the whole budget: not kept
    assert cache.get("huge") is None and cache.bytes <= 1000


def test_imported_books_stay_within_their_byte_budget(any_db: str) -> None:
    with _client(any_db, replay_import_cache_bytes=3 * 1024 * 1024) as client:
        head = api_user(client, "alice")
        history = _history(client)
        for k in range(6):
            rec = bomb(real=100, pairs=500, salt=k)
            assert client.post("/api/records/replay", json={"record": rec}, headers=head).status_code == 200
            assert history._imported.bytes <= 3 * 1024 * 1024
        assert 1 <= len(history._imported) < 6


def _game_record(game: str, players: int, seed: int) -> dict[str, Any]:
    state = eng.load(game).new_state(players, {})
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(eng.sample_chance(state, rng) if state.is_chance_node() else rng.choice(state.legal_actions()))
    return eng.record(state)


@pytest.mark.parametrize("game,players", [("machikoro", 4), ("snowdonia", 5), ("rolltheages", 4), ("carpediem", 4)])
def test_a_books_size_estimate_is_near_what_it_holds(game: str, players: int) -> None:
    rec = _game_record(game, players, 1)
    ReplayBook(rec).log(0, "all", "en")  # the game's own tables and caches, loaded once
    gc.collect()
    tracemalloc.start()
    try:
        book = ReplayBook(rec)
        book.log(0, "all", "en")
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert 0.5 * held <= book.size_estimate() <= 2 * held


def test_limits_are_checked_before_replaying() -> None:
    limits = ReplayLimits(max_entries=10, max_undos=2, cpu_seconds=1)
    with pytest.raises(RecordTooBig, match="11 entries"):
        limits.check([{"seat": 0, "action": "x"}] * 11)
    with pytest.raises(RecordTooBig, match="3 moves"):
        limits.check([{"seat": 0, "action": "undo"}] * 3)
    limits.check([{"seat": "chance", "action": "undo"}] * 3)  # a chance outcome named "undo" is no undo
