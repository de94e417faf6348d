"""Independent rules audit: the engine checked against a model written straight from the seeds.

The reference model below does not use ``cards.json`` or the engine's tables:
every number comes from the Kosmos rulebook (seed 001), the Yucata page (seed
000) and the card table in ``shared/reference/machikoro_rtta.md``, so a
wrong number in the data file or a wrong step in the income code shows up as a
difference.  Dice are always set explicitly.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from ludothek.engine import CHANCE, load, sample_chance
from ludothek.games.machikoro.cards import ESTABLISHMENTS, LANDMARKS
from ludothek.games.machikoro.rules import MachiKoroState

from .helpers import all_coins, new, play

# ----- the card table, typed in from the reference (not read from cards.json) --------------------

#: id: (German name, colour, icon, cost, activation numbers, supply)
TABLE: dict[str, tuple[str, str, str, int, tuple[int, ...], int]] = {
    "wheat_field": ("Weizenfeld", "blue", "wheat", 1, (1,), 6),
    "ranch": ("Bauernhof", "blue", "cow", 1, (2,), 6),
    "bakery": ("Bäckerei", "green", "bread", 1, (2, 3), 6),
    "cafe": ("Café", "red", "cup", 2, (3,), 6),
    "convenience_store": ("Mini-Markt", "green", "bread", 2, (4,), 6),
    "forest": ("Wald", "blue", "gear", 3, (5,), 6),
    "stadium": ("Stadion", "purple", "tower", 6, (6,), 4),
    "tv_station": ("Fernsehsender", "purple", "tower", 7, (6,), 4),
    "business_center": ("Bürohaus", "purple", "tower", 8, (6,), 4),
    "cheese_factory": ("Molkerei", "green", "factory", 5, (7,), 6),
    "furniture_factory": ("Möbelfabrik", "green", "factory", 3, (8,), 6),
    "mine": ("Bergwerk", "blue", "gear", 6, (9,), 6),
    "family_restaurant": ("Familien-Restaurant", "red", "cup", 3, (9, 10), 6),
    "apple_orchard": ("Apfelplantage", "blue", "wheat", 3, (10,), 6),
    "fruit_and_vegetable_market": ("Markthalle", "green", "fruit", 2, (11, 12), 6),
}
LANDMARK_TABLE = {
    "train_station": ("Bahnhof", 4),
    "shopping_mall": ("Einkaufszentrum", 10),
    "amusement_park": ("Freizeitpark", 16),
    "radio_tower": ("Funkturm", 22),
}


def test_card_data_matches_the_reference_table() -> None:
    assert {e.id for e in ESTABLISHMENTS} == set(TABLE)
    for e in ESTABLISHMENTS:
        de, colour, icon, cost, rolls, supply = TABLE[e.id]
        assert (e.de, e.colour, e.icon, e.cost, e.rolls, e.supply) == (de, colour, icon, cost, rolls, supply)
    assert sum(e.supply for e in ESTABLISHMENTS) == 84
    assert {m.id: (m.de, m.cost) for m in LANDMARKS} == LANDMARK_TABLE
    assert sum(m.cost for m in LANDMARKS) == 52


# ----- a reference model of one roll's income ----------------------------------------------------


def reference_income(
    coins: list[int],
    cards: list[dict[str, int]],
    mall: list[bool],
    roller: int,
    total: int,
    out: frozenset[int] = frozenset(),
) -> tuple[list[int], list[int]]:
    """Coins after red, blue, green and the Stadium; and the TV Station's possible targets.

    Written from the rulebook: red first, counter-clockwise from the roller, each
    claim limited to what the roller still has; then blue for everybody and green
    for the roller, from the bank; then purple for the roller (Stadium 2 from each
    opponent).  The Shopping Mall adds 1 per activated cup or bread card.  Players
    in ``out`` have finished (Yucata ending): they neither pay nor receive.
    """
    n = len(coins)
    coins = list(coins)
    inside = [p for p in range(n) if p not in out]
    # Red: Café on 3 takes 1, Family Restaurant on 9-10 takes 2; the owner's Mall adds 1 per card.
    for i in range(1, n):
        owner = (roller - i) % n
        if owner in out:
            continue
        claim = 0
        if total == 3:
            claim += cards[owner].get("cafe", 0) * (1 + mall[owner])
        if total in (9, 10):
            claim += cards[owner].get("family_restaurant", 0) * (2 + mall[owner])
        pay = min(claim, coins[roller])
        coins[roller] -= pay
        coins[owner] += pay
    # Blue, every owner.
    blue = {
        1: ("wheat_field", 1),
        2: ("ranch", 1),
        5: ("forest", 1),
        9: ("mine", 5),
        10: ("apple_orchard", 3),
    }
    if total in blue:
        kind, amount = blue[total]
        for p in inside:
            coins[p] += cards[p].get(kind, 0) * amount
    # Green, the roller only.
    mine = cards[roller]
    if total in (2, 3):
        coins[roller] += mine.get("bakery", 0) * (1 + mall[roller])
    if total == 4:
        coins[roller] += mine.get("convenience_store", 0) * (3 + mall[roller])
    if total == 7:
        coins[roller] += mine.get("cheese_factory", 0) * 3 * mine.get("ranch", 0)
    if total == 8:
        coins[roller] += mine.get("furniture_factory", 0) * 3 * (mine.get("forest", 0) + mine.get("mine", 0))
    if total in (11, 12):
        wheat = mine.get("wheat_field", 0) + mine.get("apple_orchard", 0)
        coins[roller] += mine.get("fruit_and_vegetable_market", 0) * 2 * wheat
    # Purple, the roller only: Stadium first (ruling 2), then the TV Station's targets.
    targets: list[int] = []
    if total == 6:
        if mine.get("stadium", 0):
            for p in inside:
                if p != roller:
                    pay = min(2, coins[p])
                    coins[p] -= pay
                    coins[roller] += pay
        if mine.get("tv_station", 0):
            targets = [p for p in inside if p != roller and coins[p]]
    return coins, targets


NON_PURPLE = [k for k, row in TABLE.items() if row[1] != "purple"]
PURPLE = [k for k, row in TABLE.items() if row[1] == "purple"]
THREE = ["train_station", "shopping_mall", "amusement_park"]

Position = tuple[int, list[int], list[dict[str, int]], list[bool], int, tuple[int, ...], frozenset[int]]


@st.composite
def positions(draw: st.DrawFn) -> Position:
    n = draw(st.integers(2, 4))
    coins = [draw(st.integers(0, 12)) for _ in range(n)]
    cards = []
    for _ in range(n):
        city = {k: c for k in NON_PURPLE if (c := draw(st.integers(0, 3)))}
        city |= {k: 1 for k in PURPLE if k != "business_center" and draw(st.booleans())}
        cards.append(city)
    mall = [draw(st.booleans()) for _ in range(n)]
    roller = draw(st.integers(0, n - 1))
    two = draw(st.booleans())
    dice = (draw(st.integers(1, 6)), draw(st.integers(1, 6))) if two else (draw(st.integers(1, 6)),)
    others = [p for p in range(n) if p != roller]
    out = (
        frozenset(draw(st.lists(st.sampled_from(others), max_size=n - 2, unique=True)))
        if n > 2
        else frozenset()
    )
    return n, coins, cards, mall, roller, tuple(sorted(dice)), out


def _finish(state: MachiKoroState, seat: int) -> None:
    """Let ``seat`` complete its fourth landmark (Yucata ending: it is placed and leaves)."""
    state.arrange(coins={seat: 22}, landmarks={seat: THREE}, turn=seat)
    play(state, "roll:1", "dice:4", "build:radio_tower")
    assert state.is_out(seat)


@settings(max_examples=400)
@given(positions())
def test_income_matches_the_reference_model(pos: Position) -> None:
    n, coins, cards, mall, roller, dice, out = pos
    state = new(n)
    for seat in sorted(out):
        _finish(state, seat)
    landmarks = {
        p: ["train_station"] + (["shopping_mall"] if mall[p] else []) for p in range(n) if p not in out
    }
    state.arrange(
        coins=dict(enumerate(coins)), cards=dict(enumerate(cards)), landmarks=landmarks, turn=roller
    )
    play(state, "roll:2" if len(dice) == 2 else "roll:1", "dice:" + "+".join(map(str, dice)))
    expected, targets = reference_income(coins, cards, mall, roller, sum(dice), out)
    if len(targets) > 1:
        assert state.phase == "tv_station"
        assert state.legal_actions() == [f"tv:{p + 1}" for p in targets]
        target = targets[-1]
        play(state, f"tv:{target + 1}")
    elif targets:
        target = targets[0]  # Yucata: the only opponent with coins is chosen automatically
    if targets:
        pay = min(5, expected[target])
        expected[target] -= pay
        expected[roller] += pay
    assert all_coins(state) == expected
    assert state.phase == "build" and state.current_player() == roller


# ----- scenarios the seeds describe that the other test files do not cover --------------------------


def test_counter_clockwise_with_four_players() -> None:
    """A (seat 0) rolls 3 with 4 coins; B, C and D own 2 Cafés each: D, then C, then B."""
    state = new(
        4, coins={0: 4, 1: 0, 2: 0, 3: 0}, cards={0: {}, 1: {"cafe": 2}, 2: {"cafe": 2}, 3: {"cafe": 2}}
    )
    play(state, "dice:3")
    assert all_coins(state) == [0, 0, 2, 2]
    # And from a roller in the middle of the table: seat 2 rolls, seat 1 first, then 0, then 3.
    state = new(
        4,
        coins={0: 0, 1: 0, 2: 3, 3: 0},
        cards={0: {"cafe": 1}, 1: {"cafe": 2}, 2: {}, 3: {"cafe": 5}},
        turn=2,
    )
    play(state, "dice:3")
    assert all_coins(state) == [1, 2, 0, 0]


def test_shopping_mall_red_bonus_is_capped_by_the_rollers_coins() -> None:
    """Kosmos example value (Family Restaurant with the Mall takes 3), but the roller has only 2."""
    state = new(
        2,
        coins={0: 2, 1: 0},
        cards={0: {}, 1: {"family_restaurant": 1}},
        landmarks={0: ["train_station"], 1: ["shopping_mall"]},
    )
    play(state, "roll:2", "dice:4+6")
    assert all_coins(state) == [0, 2]


def test_yucata_finished_player_is_skipped_in_the_counter_clockwise_order() -> None:
    """Seat 1 finishes; when seat 2 rolls 3, seat 0's Cafés are served, seat 1's take nothing."""
    state = new(
        3,
        coins={0: 0, 1: 22, 2: 0},
        cards={0: {"cafe": 1}, 1: {"cafe": 3}, 2: {}},
        landmarks={1: THREE},
        turn=1,
    )
    play(state, "roll:1", "dice:4", "build:radio_tower")
    assert state.is_out(1) and state.turn == 2
    state.arrange(coins={2: 2})
    play(state, "dice:3")
    assert all_coins(state) == [1, 0, 1]


def test_yucata_finisher_with_doubles_gets_no_extra_turn() -> None:
    state = new(3, coins={0: 22, 1: 0, 2: 0}, landmarks={0: THREE})
    play(state, "roll:2", "dice:3+3", "build:radio_tower")
    assert state.is_out(0) and state.turn == 1 and not state.extra_turn


def test_komme_refill_then_the_extra_turn_follows() -> None:
    """Building the last card of a pile in a doubles turn: refill first, then the extra turn."""
    state = new(2, market="komme_was_wolle")
    kinds = [e.id for e in ESTABLISHMENTS]
    while state.phase == "draw":  # display: the first 10 kinds of the table
        drawn = next(k for k in kinds[:10] if not state.pile(k))
        state.apply_action(f"draw:{drawn}")
    state.arrange(
        coins={0: 10},
        landmarks={0: ["train_station", "amusement_park"]},
        piles={"ranch": 1},
    )
    play(state, "roll:2", "dice:2+2", "build:ranch")
    assert state.phase == "draw" and state.current_player() == CHANCE
    assert "draw:ranch" in state.legal_actions()
    state.apply_action("draw:apple_orchard")  # an 11th kind on the table makes 10 on display
    assert state.turn == 0 and state.extra_turn and state.current_player() == 0
    assert sum(1 for k in kinds if state.pile(k)) == 10


def test_komme_refill_stops_when_the_deck_runs_out_below_ten_kinds() -> None:
    state = new(2, market="komme_was_wolle")
    kinds = [e.id for e in ESTABLISHMENTS]
    while state.phase == "draw":
        drawn = next(k for k in kinds[:10] if not state.pile(k))
        state.apply_action(f"draw:{drawn}")
    # Only two cards are left in the deck, both of kinds already on display.
    state.arrange(coins={0: 10}, piles={"ranch": 1}, deck={k: 0 for k in kinds} | {"wheat_field": 2})
    play(state, "dice:5", "build:ranch")
    assert state.phase == "draw"
    play(state, "draw:wheat_field", "draw:wheat_field")
    assert state.deck_count() == 0 and state.turn == 1 and state.phase == "dice"
    assert sum(1 for k in kinds if state.pile(k)) == 9


# ----- views: everything public that decides the position ------------------------------------------


def test_view_shows_the_number_of_dice_and_the_radio_tower_reroll() -> None:
    """Between the choice and the roll, and after a re-roll, the view must say what is going on."""
    state = new(2, landmarks={0: ["train_station", "radio_tower"]})
    assert state.view(1)["dice_count"] is None  # not chosen yet
    play(state, "roll:2")
    view = state.view(1)
    assert view["phase"] == "dice" and view["dice_count"] == 2 and view["rerolled"] is False
    play(state, "dice:1+2", "reroll")
    view = state.view(None)
    assert view["phase"] == "dice" and view["dice_count"] == 2 and view["rerolled"] is True
    assert view["dice"] == [1, 2]  # the re-rolled dice are still shown as the last roll


def test_view_shows_who_plays_after_the_display_is_refilled() -> None:
    state = new(2, market="komme_was_wolle")
    kinds = [e.id for e in ESTABLISHMENTS]
    while state.phase == "draw":
        state.apply_action(f"draw:{next(k for k in kinds[:10] if not state.pile(k))}")
    assert state.view(0)["next_turn"] is None
    state.arrange(coins={0: 10}, landmarks={0: ["train_station", "amusement_park"]}, piles={"ranch": 1})
    play(state, "roll:2", "dice:2+2", "build:ranch")
    assert state.view(1)["next_turn"] == {"seat": 0, "player": 1, "extra_turn": True}


# ----- whole games: every roll and every turn change checked against the reference -------------------

options_st = st.fixed_dictionaries(
    {
        "ending": st.sampled_from(["yucata", "kosmos"]),
        "market": st.sampled_from(["all", "komme_was_wolle"]),
        "max_two": st.sampled_from(["off", "on"]),
    }
)


def _expected_income(state: MachiKoroState, total: int) -> tuple[list[int], list[int]]:
    view = state.view(None)
    cities = view["cities"]
    return reference_income(
        [c["coins"] for c in cities],
        [c["establishments"] for c in cities],
        [c["landmarks"]["shopping_mall"] == "active" for c in cities],
        view["turn"],
        total,
        frozenset(c["seat"] for c in cities if c["finished"]),
    )


def _expected_next_turn(state: MachiKoroState, action: str) -> tuple[int, bool] | None:
    """Who plays after ``action`` ends the turn (None: the game ends), from the rules."""
    view = state.view(None)
    me = view["turn"]
    cities = view["cities"]
    landmarks = cities[me]["landmarks"]
    fourth = sum(v != "unbuilt" for v in landmarks.values()) == 3
    if action.startswith("build:") and action[6:] in landmarks and fourth:
        finished = [c["seat"] for c in cities if c["finished"]] + [me]
        if state.options["ending"] == "kosmos" or len(finished) == state.num_players - 1:
            return None
        nxt = (me + 1) % state.num_players
        while nxt in finished:
            nxt = (nxt + 1) % state.num_players
        return nxt, False
    dice = view["dice"]
    doubles = len(dice) == 2 and dice[0] == dice[1]
    if doubles and landmarks["amusement_park"] == "active" and not view["extra_turn"]:
        return me, True
    nxt = (me + 1) % state.num_players
    while cities[nxt]["finished"]:
        nxt = (nxt + 1) % state.num_players
    return nxt, False


@settings(max_examples=25)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4), options=options_st)
def test_random_games_follow_the_reference(seed: int, players: int, options: dict[str, str]) -> None:
    rng = random.Random(seed)
    state = load_state(players, options)
    for _ in range(20_000):
        if state.is_terminal():
            break
        phase = state.phase
        if state.current_player() == CHANCE:
            action = sample_chance(state, rng)
        else:
            action = rng.choice(state.legal_actions())
        before = state.clone()
        expected: tuple[list[int], list[int]] | None = None
        if phase == "dice":
            total = sum(int(d) for d in action[5:].split("+"))
            radio = before.view(None)["cities"][before.turn]["landmarks"]["radio_tower"] == "active"
            if not radio or before.rerolled:
                expected = _expected_income(before, total)
        elif action == "keep":
            expected = _expected_income(before, sum(before.dice()))
        resumes = _expected_next_turn(before, action) if phase == "build" else None
        state.apply_action(action)
        if expected is not None:
            coins, targets = expected
            if len(targets) > 1:
                assert state.phase == "tv_station"
                assert state.legal_actions() == [f"tv:{p + 1}" for p in targets]
            else:
                if targets:
                    coins[targets[0]], coins[state.turn] = (
                        coins[targets[0]] - min(5, coins[targets[0]]),
                        coins[state.turn] + min(5, coins[targets[0]]),
                    )
                assert all_coins(state) == coins
        if phase == "build":
            if resumes is None:
                assert state.is_terminal()
            else:
                while state.phase == "draw":
                    state.apply_action(sample_chance(state, rng))
                assert (state.turn, state.extra_turn) == resumes
                # Landmarks built before this turn are in effect now, and only those.
                city = state.view(None)["cities"][state.turn]
                assert all(v != "built" for v in city["landmarks"].values())
    assert state.is_terminal()


def load_state(players: int, options: dict[str, str]) -> MachiKoroState:
    state = load("machikoro").new_state(players, options)
    assert isinstance(state, MachiKoroState)
    return state


def test_german_log_sentences_use_the_rulebook_names() -> None:
    state = new(2, coins={0: 100, 1: 0}, cards={0: {}, 1: {}})
    play(state, "dice:5")
    for card_id, row in TABLE.items():
        assert f"baut {row[0]} für" in state.describe(f"build:{card_id}", "de")
    for landmark_id, (de, cost) in LANDMARK_TABLE.items():
        assert state.describe(f"build:{landmark_id}", "de") == f"Spieler 1 baut {de} für {cost} Münzen."
    state = new(2, cards={0: {"business_center": 1, "apple_orchard": 1}, 1: {"cheese_factory": 1}})
    play(state, "dice:6")
    assert (
        state.describe("trade:apple_orchard:2:cheese_factory", "de")
        == "Spieler 1 tauscht Apfelplantage gegen Molkerei von Spieler 2 (Bürohaus)."
    )
