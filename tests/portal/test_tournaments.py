"""Tournaments on the site (issue 31), on SQLite and PostgreSQL: creating, entering, rounds that start
by themselves, withdrawing mid-round, the organiser's actions, standings and notices."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select

from ludothek.services import Site
from ludothek.services.tournaments.standings import standings
from ludothek.storage import BadRequest, Conflict, Forbidden, NotFound
from ludothek.storage.models import (
    GameRow,
    OutboxRow,
    SeatRow,
    TournamentBye,
    TournamentEntrant,
    TournamentRound,
    TournamentRow,
    TournamentTable,
)
from tests.portal.tournament_support import count, later, new_site, people, play_to_end, round_games, spec


@pytest.fixture
def site(any_db: str) -> Iterator[Site]:
    s = new_site(any_db)
    yield s
    s.engine.dispose()


def notices(site: Site, kind: str) -> list[tuple[int, str]]:
    with site.engine.begin() as conn:
        return [(r.user_id, r.payload_json) for r in conn.execute(
            select(OutboxRow.user_id, OutboxRow.payload_json).where(OutboxRow.kind == kind).order_by(OutboxRow.id))]


@pytest.mark.parametrize("bad, key", [
    ({"time_control": "none"}, "tournament_clock"),
    ({"time_control": None}, "tournament_clock"),
    ({"game": "chess"}, "tournament_game"),
    ({"table_size": 7}, "tournament_bad_number"),
    ({"table_size": 3, "options": {"length": "huge"}}, "options_value"),
    ({"rounds": 0}, "tournament_bad_number"),
    ({"format": "ladder"}, "tournament_format"),
    ({"name": ""}, "tournament_name"),
    ({"starts_at": None}, "tournament_starts_at"),
    ({"starts_at": "2001-01-01T00:00:00Z"}, "tournament_starts_at"),
    ({"starts_at": "tomorrow"}, "tournament_bad_time"),
    ({"max_entrants": 1}, "tournament_bad_number"),
    ({"min_entrants": 9}, "tournament_bad_number"),
    ({"start_rule": "whenever"}, "tournament_start_rule"),
    ({"invite": ["bob"]}, "tournament_invite"),
    ({"round_days": 0}, "tournament_round_days"),
    ({"min_rating": "high"}, "tournament_rating"),
])
def test_bad_tournaments_are_refused_with_the_reason_and_nothing_is_stored(site: Site, bad: dict[str, Any],
                                                                          key: str) -> None:
    (ann,) = people(site, "ann")
    with pytest.raises((BadRequest, NotFound)) as refused:
        site.tournaments.create(ann, spec(**bad))
    code = refused.value.params.get("code_key")
    assert code == key or (key == "options_value" and str(code).startswith("options_")), refused.value.message
    assert count(site, TournamentRow) == 0


def test_a_two_round_swiss_runs_by_itself_to_the_end(site: Site) -> None:
    ann, bob, cid = people(site, "ann", "bob", "cid")
    tid = site.tournaments.create(ann, spec())
    for who in (ann, bob, cid):
        site.tournaments.enter(tid, who)
    with pytest.raises(Conflict):
        site.tournaments.enter(tid, bob)  # twice
    assert len(notices(site, "tournament_entered")) == 3
    assert site.tournaments.run_due() == 0  # not yet: it starts at its time
    assert site.tournaments.run_due(later()) == 1
    info = site.tournaments.get(tid)
    assert (info.state, info.current_round) == ("running", 1)
    first = round_games(site, tid, 1)
    assert len(first) == 1 and count(site, TournamentBye) == 1  # three entrants, tables of two: one bye
    game = site.games.game(first[0])
    assert game.status == "running" and game.clock == {"kind": "move", "days": 3}
    assert site.tournaments.tournament_of_game(first[0]) == tid
    assert site.tournaments.run_due(later()) == 0  # the round's game still runs
    play_to_end(site, first[0])
    assert site.tournaments.run_due(later()) == 1
    assert site.tournaments.get(tid).current_round == 2
    second = round_games(site, tid, 2)
    bye_1 = site.tournaments.pairings(tid)[0]["byes"]
    assert len(second) == 1 and site.tournaments.pairings(tid)[1]["byes"] != bye_1  # the bye moves on
    play_to_end(site, second[0])
    assert site.tournaments.run_due(later()) == 1
    info = site.tournaments.get(tid)
    assert info.state == "finished" and info.finished_at is not None
    assert site.tournaments.run_due(later()) == 0
    table = site.tournaments.standings(tid)
    assert table[0]["rank"] == 1 and sum(r["games"] for r in table) == 4
    assert sum(r["byes"] for r in table) == 2
    assert set(table[0]["tiebreaks"]) == {"buchholz", "head_to_head", "score"}
    assert [r["rank"] for r in table] == [1, 2, 3]  # never shared
    with site.engine.begin() as conn:  # the site ranks exactly as the pure standings module
        entrants, history, byes = site.tournaments._history(conn, tid)
    pure = standings(entrants, history, byes, 2)
    assert [(r["entrant"], r["points"], r["tiebreaks"]["buchholz"], r["tiebreaks"]["head_to_head"],
             r["tiebreaks"]["score"]) for r in table] == [
        (s.entrant, s.points, s.buchholz, s.head_to_head, s.game_score) for s in pure]
    assert sum(r["points"] for r in table) == 2 * 1 + 2 * 0.5  # two games worth 1 + 0, two byes worth ½ each
    assert len(notices(site, "tournament_round")) == 6  # 3 entrants x 2 rounds (a bye is told too)
    assert len(notices(site, "tournament_ended")) == 3
    assert count(site, TournamentRound) == 2
    # Tournament games are ordinary rated games.
    with site.engine.begin() as conn:
        places = conn.execute(select(SeatRow.place).where(SeatRow.game_id == first[0])).scalars().all()
    assert sorted(p for p in places if p is not None) in ([1, 2], [1, 1])
    assert site.ratings.ratings_of(ann.id) or site.ratings.ratings_of(bob.id) or site.ratings.ratings_of(cid.id)


def test_entry_limits(site: Site) -> None:
    ann, bob, cid, dan = people(site, "ann", "bob", "cid", "dan")
    tid = site.tournaments.create(ann, spec(max_entrants=2))
    site.tournaments.enter(tid, bob)
    site.tournaments.enter(tid, cid)
    with pytest.raises(Conflict) as full:
        site.tournaments.enter(tid, dan)
    assert full.value.params["code_key"] == "tournament_full"
    invited = site.tournaments.create(ann, spec(invite_only=True, invite=["bob"]))
    with pytest.raises(Forbidden):
        site.tournaments.enter(invited, cid)
    site.tournaments.enter(invited, bob)
    rated = site.tournaments.create(ann, spec(min_rating=10))
    with pytest.raises(Forbidden) as low:
        site.tournaments.enter(rated, dan)
    assert low.value.params["code_key"] == "tournament_rating_low"
    guest = site.accounts.create_guest() if hasattr(site.accounts, "create_guest") else None
    if guest is not None:
        with pytest.raises(Forbidden):
            site.tournaments.enter(tid, guest)
    with pytest.raises(NotFound):
        site.tournaments.enter(999, bob)
    assert site.tournaments.status_of(tid, dan.id) is None


def test_too_few_entrants_cancel_at_the_start_and_a_full_one_starts_when_full(site: Site) -> None:
    ann, bob, cid = people(site, "ann", "bob", "cid")
    lonely = site.tournaments.create(ann, spec())
    site.tournaments.enter(lonely, bob)
    assert site.tournaments.run_due(later()) == 1
    assert site.tournaments.get(lonely).state == "cancelled"
    full = site.tournaments.create(ann, spec(start_rule="full", starts_at=None, max_entrants=2))
    site.tournaments.enter(full, bob)
    assert site.tournaments.run_due() == 0
    site.tournaments.enter(full, cid)
    assert site.tournaments.run_due() == 1
    assert site.tournaments.get(full).state == "running" and len(round_games(site, full, 1)) == 1


def test_a_player_who_withdraws_forfeits_and_a_bot_plays_on(site: Site) -> None:
    ann, bob, cid, dan = people(site, "ann", "bob", "cid", "dan")
    tid = site.tournaments.create(ann, spec(rounds=3))
    for who in (ann, bob, cid, dan):
        site.tournaments.enter(tid, who)
    site.tournaments.run_due(later())
    games = round_games(site, tid, 1)
    assert len(games) == 2
    mine = next(g for g in games if site.games.game(g).seat_of(dan.id) is not None)
    seat = site.games.game(mine).seat_of(dan.id)
    site.tournaments.withdraw(tid, dan)
    taken = next(s for s in site.games.game(mine).seats if s.seat == seat)
    assert (taken.kind, taken.left_as) == ("bot", "resigned")  # the game goes on with a bot
    assert site.games.game(mine).status == "running"
    for g in games:
        play_to_end(site, g)
    site.tournaments.run_due(later())
    second = round_games(site, tid, 2)
    seated = {s.user_id for g in second for s in site.games.game(g).seats}
    assert dan.id not in seated and len(second) == 1  # three left: one table, one bye
    row = next(r for r in site.tournaments.standings(tid) if r["name"] == "dan")
    assert row["withdrawn"] and row["games"] == 1
    with pytest.raises(Conflict):
        site.tournaments.withdraw(tid, dan)


def test_the_organiser_pauses_removes_and_cancels(site: Site) -> None:
    ann, bob, cid = people(site, "ann", "bob", "cid")
    tid = site.tournaments.create(ann, spec())
    site.tournaments.enter(tid, bob)
    site.tournaments.enter(tid, cid)
    with pytest.raises(Forbidden):
        site.tournaments.cancel(tid, bob)
    with pytest.raises(Conflict):
        site.tournaments.pause(tid, ann)  # not running yet
    site.tournaments.run_due(later())
    site.tournaments.pause(tid, ann)
    (gid,) = round_games(site, tid, 1)
    play_to_end(site, gid)
    assert site.tournaments.run_due(later()) == 0  # paused: no new round
    site.tournaments.resume(tid, ann)
    assert site.tournaments.run_due(later()) == 1
    with pytest.raises(Forbidden):
        site.tournaments.remove(tid, bob, "cid")
    site.tournaments.remove(tid, ann, "cid")
    assert site.tournaments.status_of(tid, cid.id) == "removed"
    site.tournaments.cancel(tid, ann)
    assert site.tournaments.get(tid).state == "cancelled"
    assert site.tournaments.run_due(later()) == 0
    with pytest.raises(Conflict):
        site.tournaments.enter(tid, cid)


def test_a_round_exists_once_in_the_database(site: Site) -> None:
    ann, bob = people(site, "ann", "bob")
    tid = site.tournaments.create(ann, spec())
    site.tournaments.enter(tid, ann)
    site.tournaments.enter(tid, bob)
    assert site.tournaments.advance(tid, later()) == 1
    assert site.tournaments.advance(tid, later()) == 0  # its game runs
    with site.engine.begin() as conn:
        tables = conn.execute(select(TournamentTable.game_id)).scalars().all()
        linked = conn.execute(select(GameRow.id).where(GameRow.id.in_(tables))).scalars().all()
        entrants = conn.execute(select(TournamentEntrant.status)).scalars().all()
    assert len(tables) == len(linked) == 1 and entrants == ["entered", "entered"]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_notices_read_in_the_players_language_and_lead_to_the_tournament(site: Site, lang: str) -> None:
    ann, bob, cid = (site.accounts.register(n, "password-" + n, lang) for n in ("ann", "bob", "cid"))
    tid = site.tournaments.create(ann, spec(name="Pig cup"))
    for who in (ann, bob, cid):
        site.tournaments.enter(tid, who)
    site.tournaments.run_due(later())
    (gid,) = round_games(site, tid, 1)
    now = later()
    entered = site.messages.message(ann.id, "tournament_entered", None, None, {"tournament": tid}, now)
    game = site.messages.message(ann.id, "tournament_round", None, None, {"tournament": tid, "round": 1, "game": gid},
                                 now)
    bye = site.messages.message(ann.id, "tournament_round", None, None, {"tournament": tid, "round": 1, "bye": True},
                                now)
    ended = site.messages.message(ann.id, "tournament_ended", None, None, {"tournament": tid}, now)
    called_off = site.messages.message(ann.id, "tournament_ended", None, None, {"tournament": tid, "cancelled": True},
                                       now)
    for message in (entered, game, bye, ended, called_off):
        assert message is not None and "Pig cup" in message.title + message.body
        assert "{" not in message.title + message.body and "notice_" not in message.title
    assert game is not None and game.path == f"/games/{gid}"
    assert ("Runde 1" if lang == "de" else "round 1") in game.title
    assert entered is not None and entered.path == f"/tournaments/{tid}"
    assert site.messages.message(ann.id, "tournament_round", None, None, {"tournament": 999}, now) is None



def test_a_fixed_schedule_waits_for_its_time_and_for_the_games(site: Site) -> None:
    ann, bob = people(site, "ann", "bob")
    tid = site.tournaments.create(ann, spec(round_days=2))
    site.tournaments.enter(tid, ann)
    site.tournaments.enter(tid, bob)
    site.tournaments.run_due(later())
    (gid,) = round_games(site, tid, 1)
    play_to_end(site, gid)
    assert site.tournaments.run_due(later(24)) == 0  # a day after round 1 started: not yet
    assert site.tournaments.get(tid).current_round == 1
    assert site.tournaments.run_due(later(50)) == 1  # two days after: round 2
    assert site.tournaments.get(tid).current_round == 2
