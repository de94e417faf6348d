"""Statistics (issue 32): Wilson intervals, purchases read from records (undos left out), figures per
seat, purchase and opening, bot games apart, and the strength adjustment undoing a strength bias."""

from __future__ import annotations

import math
import random

import pytest

from ludothek import engine as eng
from ludothek.devtools.gamefill import playout
from ludothek.services.statistics import GameFacts, SeatFacts, facts_of, figures, purchases, wilson


def test_wilson_interval() -> None:
    low, high = wilson(5, 10)
    assert math.isclose(low, 0.2366, abs_tol=1e-4) and math.isclose(high, 0.7634, abs_tol=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(0, 20)
    assert low == 0.0 and 0.1 < high < 0.2


def test_purchases_leave_out_what_was_taken_back() -> None:
    actions: list[dict[str, object]] = [{"seat": "chance", "action": "dice:3"}, {"seat": 0, "action": "build:cafe"},
                                        {"seat": 0, "action": "undo"}, {"seat": 0, "action": "build:bakery"},
                                        {"seat": 1, "action": "pass"}, {"seat": 1, "action": "build:train_station"}]
    assert purchases("machikoro", actions, 2) == [["bakery"], ["train_station"]]
    assert purchases("rolltheages", [{"seat": 0, "action": "buy:agriculture:cloth+metal"},
                                     {"seat": 0, "action": "work:city:3"},
                                     {"seat": 1, "action": "work:temple:2"}], 2) == [["agriculture"],
                                                                                    ["monument:temple"]]
    assert purchases("snowdonia", [{"seat": 1, "action": "train:3+iron"}, {"seat": 0, "action": "contract:12"}],
                     2) == [["contract:12"], ["train:3"]]


def test_figures_from_real_games_count_every_seat_once_per_feature() -> None:
    rng = random.Random(3)
    records = []
    for _ in range(30):
        state = playout("machikoro", 2, rng)
        records.append(eng.record(state))
    facts = [facts_of(r) for r in records]
    rows = figures(facts)
    seats = [f for f in rows if f.feature == "seat"]
    assert sorted(f.value for f in seats) == ["1", "2"] and all(f.games == 30 for f in seats)
    assert sum(f.wins for f in seats) >= 30  # one winner a game, ties count for each
    openings = [f for f in rows if f.feature == "opening"]
    assert sum(f.games for f in openings) <= 60 and openings
    for f in rows:
        assert 0 <= f.low <= f.rate <= f.high <= 1 and f.adjusted is None  # no ratings given: raw only


def seat(n: int, won: bool, strength: float | None, bought: str, person: bool = True) -> SeatFacts:
    return SeatFacts(n, won, person, strength, frozenset({bought}), bought)


def test_bot_games_are_kept_apart() -> None:
    people = GameFacts("machikoro", "{}", "people", (seat(0, True, None, "a"), seat(1, False, None, "b")))
    bots = GameFacts("machikoro", "{}", "bots", (seat(0, False, None, "a"), seat(1, True, None, "b", person=False)))
    rows = figures([people, bots])
    assert {(f.group, f.feature, f.value, f.wins) for f in rows if f.feature == "seat"} == {
        ("people", "seat", "1", 1), ("people", "seat", "2", 0), ("bots", "seat", "1", 0), ("bots", "seat", "2", 1)}


def test_the_adjustment_removes_a_strength_bias() -> None:
    """The stronger player always buys x and wins more often for their strength alone: x's raw rate is high,
    its adjusted rate is what the group's players win on average."""
    rng = random.Random(11)
    games = []
    for _ in range(3000):
        gap = rng.uniform(0, 3)
        strong_wins = rng.random() < 1 / (1 + math.exp(-gap))
        games.append(GameFacts("machikoro", "{}", "people", (seat(0, strong_wins, gap, "x"),
                                                             seat(1, not strong_wins, -gap, "y"))))
    rows = {(f.feature, f.value): f for f in figures(games)}
    x = rows[("bought", "x")]
    assert x.rate > 0.7
    assert x.adjusted is not None and x.adjusted_low is not None and x.adjusted_high is not None
    assert x.adjusted == pytest.approx(0.5, abs=0.03) and x.adjusted_low < 0.5 < x.adjusted_high


@pytest.mark.parametrize(("kind", "item", "de", "en"), [
    ("machikoro", "wheat_field", "Weizenfeld", "Wheat Field"),
    ("machikoro", "radio_tower", "Funkturm", "Radio Tower"),
    ("rolltheages", "leadership", "Führungskraft", "Leadership"),
    ("rolltheages", "monument:great_wall", "Große Mauer", "Great Wall"),
    ("snowdonia", "train:1", "Lok 1 (L.A.D.A.S.)", "Train 1 (L.A.D.A.S.)"),
    ("carpediem", "L01", "L01 (Markt)", "L01 (market)"),
])
def test_every_game_names_what_the_statistics_count(kind: str, item: str, de: str, en: str) -> None:
    """The names come from each game's own data (the portal keeps no name table): both languages."""
    from ludothek import engine as eng

    game = eng.load(kind)
    assert (game.item_name(item, "de"), game.item_name(item, "en")) == (de, en)
    assert game.item_name("no_such_thing", "en") is None
    assert eng.load(kind).item_name("contract:7", "en", {"map": "mount_snowdon"}) is None or kind == "snowdonia"


def test_sparse_purchases_agree_with_the_whole_record() -> None:
    """Reading only purchases and undos (the rebuild's way) gives what the whole record gives, for random
    records full of undos, chance entries and plain actions."""
    from ludothek.services.statistics.compute import sparse_purchases

    rng = random.Random(5)
    words = ["build:bakery", "build:ranch", "roll", "end", "undo", "undo", "buy:x"]
    for _ in range(500):
        entries = [(rng.choice([-1, 0, 1]), rng.choice(words)) for _ in range(rng.randrange(30))]
        whole = [{"seat": "chance" if seat < 0 else seat, "action": action} for seat, action in entries]
        read = [(seq, seat, action) for seq, (seat, action) in enumerate(entries)
                if action == "undo" or action.startswith(("build:", "buy:"))]
        assert sparse_purchases("machikoro", read, 2) == purchases("machikoro", whole, 2), entries
