"""Round robin and knock-out on the site (issue 31), on SQLite and PostgreSQL: the formats' pure pairings
driven by the round job to the end, the rounds fixed at the start, and fields the format cannot play."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from ludothek.services import Site
from ludothek.storage import BadRequest
from ludothek.storage.models import OutboxRow, SeatRow, TournamentRow
from tests.portal.tournament_support import count, later, new_site, people, play_to_end, round_games, spec


@pytest.fixture
def site(any_db: str) -> Iterator[Site]:
    s = new_site(any_db)
    yield s
    s.engine.dispose()


def play_rounds(site: Site, tid: int) -> int:
    """Play every round the round job starts until the tournament ends; how many rounds were played."""
    played = 0
    for _ in range(40):
        info = site.tournaments.get(tid)
        if info.state != "running":
            return played
        for gid in round_games(site, tid, info.current_round):
            play_to_end(site, gid)
        played = info.current_round
        site.tournaments.run_due(later())
    raise AssertionError("the tournament did not end")


def test_a_round_robin_seats_every_pair_once_and_ends_after_its_schedule(site: Site) -> None:
    ann, bob, cid, dan, eve = people(site, "ann", "bob", "cid", "dan", "eve")
    tid = site.tournaments.create(ann, spec(format="round_robin", rounds=2, max_entrants=6))
    assert site.tournaments.get(tid).rounds == 5  # a full field of six would play five rounds
    for who in (ann, bob, cid, dan, eve):
        site.tournaments.enter(tid, who)
    site.tournaments.withdraw(tid, eve)  # left before the start: not in the schedule
    assert site.tournaments.run_due(later()) == 1
    info = site.tournaments.get(tid)
    assert (info.state, info.rounds, info.current_round) == ("running", 3, 1)  # four entrants: three rounds
    assert play_rounds(site, tid) == 3
    assert site.tournaments.get(tid).state == "finished"
    met = [frozenset(s["name"] for s in t["seats"]) for r in site.tournaments.pairings(tid) for t in r["tables"]]
    assert sorted(met, key=sorted) == sorted((frozenset(p) for p in itertools.combinations(
        ("ann", "bob", "cid", "dan"), 2)), key=sorted)  # every pair exactly once
    assert all(not r["byes"] for r in site.tournaments.pairings(tid))
    table = site.tournaments.standings(tid)
    assert [r["games"] for r in table if r["name"] != "eve"] == [3, 3, 3, 3]
    assert sum(r["points"] for r in table) == 6  # six games, one point each


def test_a_knockout_sends_the_winners_on_to_a_final(site: Site) -> None:
    names = ("ann", "bob", "cid", "dan", "eve")
    users = people(site, *names)
    tid = site.tournaments.create(users[0], spec(format="knockout", max_entrants=5))
    for who in users:
        site.tournaments.enter(tid, who)
    site.tournaments.run_due(later())
    assert site.tournaments.get(tid).rounds == 3  # 5 → 3 (two tables, a bye) → 2 → the final
    assert play_rounds(site, tid) == 3
    rounds = site.tournaments.pairings(tid)
    assert [len(r["tables"]) for r in rounds] == [2, 1, 1] and [len(r["byes"]) for r in rounds] == [1, 1, 0]
    with site.engine.begin() as conn:
        def winners(r: dict) -> set[str]:
            out = set()
            for t in r["tables"]:
                places = dict(conn.execute(select(SeatRow.seat, SeatRow.place).where(SeatRow.game_id == t["game_id"])).all())
                best = min(p for p in places.values() if p is not None)
                out |= {s["name"] for s in t["seats"] if places[s["seat"]] == best}
            return out
        for before, after in itertools.pairwise(rounds):
            going = {s["name"] for t in after["tables"] for s in t["seats"]} | set(after["byes"])
            assert going == winners(before) | set(before["byes"])  # exactly the winners and the byes go on
    assert site.tournaments.get(tid).state == "finished"


def test_a_knockout_field_without_a_full_final_is_called_off_at_the_start(site: Site) -> None:
    users = people(site, "ann", "bob", "cid", "dan")
    # Tables of three, one advancing: 3 and 5 reach a final of three, 4 and 6 do not.
    tid = site.tournaments.create(users[0], spec(format="knockout", table_size=3, min_entrants=3, max_entrants=6))
    for who in users:
        site.tournaments.enter(tid, who)
    assert site.tournaments.run_due(later()) == 1
    info = site.tournaments.get(tid)
    assert (info.state, info.current_round) == ("cancelled", 0)
    assert round_games(site, tid, 1) == []
    with site.engine.begin() as conn:
        told = [json.loads(p) for p in conn.execute(select(OutboxRow.payload_json)
                                                    .where(OutboxRow.kind == "tournament_ended")).scalars()]
    assert len(told) == 4 and all(p.get("no_final") and p.get("cancelled") for p in told)


@pytest.mark.parametrize("bad, key", [
    ({"format": "round_robin", "max_entrants": 25}, "tournament_round_robin_size"),
    ({"format": "knockout", "table_size": 3, "min_entrants": 4, "max_entrants": 4}, "tournament_knockout_field"),
])
def test_formats_refuse_fields_they_cannot_play_at_creation(site: Site, bad: dict, key: str) -> None:
    (ann,) = people(site, "ann")
    with pytest.raises(BadRequest) as refused:
        site.tournaments.create(ann, spec(**bad))
    assert refused.value.params.get("code_key") == key
    assert count(site, TournamentRow) == 0
