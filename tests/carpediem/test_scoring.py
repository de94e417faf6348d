"""Scoring rounds (green and red cards, coins as wildcards, bread, the −4 penalty, card order)
and the final scoring, with the rules page's worked examples."""

from __future__ import annotations

from ludothek.games.carpediem.district import Feature
from ludothek.games.carpediem.rules import CarpeDiemState

from .helpers import comp_with, enter_scoring, new_game, put, use_comp

VILLAS = [
    {"id": "TVE", "parts": [{"kind": "villa", "at": ["E"], "chimneys": 3}]},
    {"id": "TVW", "parts": [{"kind": "villa", "at": ["W"], "chimneys": 4}]},
]


def scoring(cards: tuple[str, str], seat: int = 0) -> CarpeDiemState:
    """A 2-player game in its first scoring round with ``cards`` on spaces 2 and 3; ``seat`` scores first."""
    state = new_game(2)
    use_comp(state, comp_with(VILLAS))
    state.players[seat].steps = 1  # ahead on the banner track: scores first
    enter_scoring(state)
    assert state.actor == seat and state.stage == "disc"
    state.slots[2], state.slots[3] = cards
    state.apply_action("disc:2-3")
    return state


def test_red_card_multiples_seed_example() -> None:
    """Pay 2 (4, 6, ...) herbs for 4 (8, 12, ...) points: 2 herbs → 4, 4 herbs → 8."""
    for herbs, points in ((2, 4), (4, 8), (5, 8)):
        state = new_game(2)
        state.players[0].steps = 1
        enter_scoring(state)
        state.slots[2], state.slots[3] = "A06", "A01"
        state.players[0].wares["herbs"] = herbs
        state.apply_action("disc:2-3")
        vp = state.players[0].vp
        state.apply_action("card:2:fulfil")
        assert state.players[0].vp == vp + points
        assert state.players[0].wares["herbs"] == herbs % 2


def test_coins_stand_in_for_any_ware() -> None:
    state = scoring(("A06", "B07"))
    p = state.players[0]
    p.wares.update(herbs=1, fish=1)
    p.coins = 3
    vp = p.vp
    state.apply_action("card:2:fulfil")  # 2 herbs, as often as possible: twice, with 1 herb + 3 coins
    assert (p.wares["herbs"], p.coins, p.vp) == (0, 0, vp + 8)
    assert state.legal_actions() == ["card:3:fail"]


def test_coins_complete_a_set_of_different_wares() -> None:
    state = scoring(("B07", "A06"))
    p = state.players[0]
    p.wares.update(herbs=1, fish=1)
    p.coins = 2
    vp = p.vp
    state.apply_action("card:2:fulfil")  # grapes + herbs + chicken + fish: 2 coins stand in for 2 wares
    assert (sum(p.wares.values()), p.coins, p.vp) == (0, 0, vp + 8)


def test_green_card_counts_what_you_own_seed_example() -> None:
    """2 (4, 6, ...) chimneys give 1 (2, 3, ...) bread: 7 chimneys → 3 bread."""
    state = scoring(("C05", "A01"))
    put(state, 0, "TVE", "c3")
    put(state, 0, "TVW", "d3")
    assert state.players[0].district.count("chimneys") == 7
    state.apply_action("card:2:fulfil")
    assert state.players[0].bread == 3


def test_unfulfilled_card_costs_four_points_and_keeps_the_wares() -> None:
    """Sylvia must pay 3 fish but has 2, no coins, no bread: she keeps the fish and loses 4 points."""
    state = scoring(("A11", "A01"))
    p = state.players[0]
    p.wares["fish"] = 2
    assert [a for a in state.legal_actions() if a.startswith("card:2")] == ["card:2:fail"]
    vp = p.vp
    state.apply_action("card:2:fail")
    assert p.wares["fish"] == 2 and p.vp == vp - 4
    state.apply_action("card:3:fail")
    assert p.vp == vp - 8  # at worst 8 points in one scoring


def test_three_bread_fulfil_a_card_once_instead_or_in_addition() -> None:
    state = scoring(("A11", "C05"))
    p = state.players[0]
    p.bread = 6
    p.wares["fish"] = 3
    assert sorted(a for a in state.legal_actions() if a.startswith("card:2")) == [
        "card:2:both", "card:2:bread", "card:2:fulfil"]
    vp = p.vp
    state.apply_action("card:2:bread")  # instead: the fish stay
    assert (p.bread, p.wares["fish"], p.vp) == (3, 3, vp + 7)
    assert state.legal_actions() == ["card:3:bread"]
    state.apply_action("card:3:bread")  # a green card with no chimneys: fulfilled once by bread
    assert (p.bread, p.vp) == (1, vp + 7)


def test_bread_from_the_first_card_can_pay_the_second() -> None:
    state = scoring(("C05", "A11"))
    put(state, 0, "TVE", "c3")
    put(state, 0, "TVW", "d3")
    p = state.players[0]
    p.bread = 0
    # order is the player's choice: both cards can be resolved first
    assert {a.split(":")[1] for a in state.legal_actions()} == {"2", "3"}
    assert [a for a in state.legal_actions() if a.startswith("card:3")] == ["card:3:fail"]
    state.apply_action("card:2:fulfil")  # 7 chimneys → 3 bread
    assert p.bread == 3
    assert state.legal_actions() == ["card:3:bread"]
    vp = p.vp
    state.apply_action("card:3:bread")
    assert p.vp == vp + 7 and p.bread == 0


def test_card_order_matters_for_coins() -> None:
    """Coins from a green card can pay the red card if it is resolved second."""
    state = scoring(("C07", "A03"))  # own 2 chimneys → 1 coin; pay 1 fish → 1 point
    put(state, 0, "TVE", "c3")
    put(state, 0, "TVW", "d3")
    assert [a for a in state.legal_actions() if a.startswith("card:3")] == ["card:3:fail"]
    state.apply_action("card:2:fulfil")
    assert state.players[0].coins == 3
    state.apply_action("card:3:fulfil")
    assert state.players[0].coins == 0


def test_scoring_order_follows_the_banner_track_top_of_stack_first() -> None:
    state = new_game(3, start=0)
    state.players[0].steps = 2
    state._advance(1, 2)  # arrives later on the same space: on top
    enter_scoring(state)
    assert state.order == [1, 0, 2]


def test_used_circles_stay_blocked() -> None:
    state = scoring(("A01", "A02"))
    state.apply_action("card:2:fail")
    state.apply_action("card:3:fail")
    assert state.actor == 1 and "disc:2-3" not in state.legal_actions()
    assert state.discs == {"2-3": 0}


def test_villa_table_seed_example() -> None:
    """A completed villa with 3 chimneys, two with 5 and two unfinished ones with 4: 3 + 7 + 7 + 0 + 0 = 17."""
    state = new_game(2)
    d = state.players[0].district
    d.features += [Feature("villa", "villa", [0, 1], 3), Feature("villa", "villa", [2, 3], 5),
                   Feature("villa", "villa", [4, 5], 5)]
    assert d.villa_vp() == 17


def test_leftovers_seed_example() -> None:
    """1 bread, 1 fish and 1 chicken left: 1 point."""
    state = new_game(2)
    p = state.players[0]
    p.bread, p.wares["fish"], p.wares["chicken"] = 1, 1, 1
    assert state.final_total(0) == state.running_total(0) + 1
    p.stored = ["L01"]
    assert state.final_total(0) == state.running_total(0) + 2


def test_banner_steps_count_at_once() -> None:
    state = new_game(2)
    total = state.running_total(0)
    state._advance(0, 2)
    assert state.running_total(0) == total + 2


def test_fountain_cards_score_at_the_end() -> None:
    state = new_game(2)
    p = state.players[0]
    p.district.counts.update(market=2, garden=1)
    p.fountains = ["market", "market", "garden"]
    assert state.final_total(0) == state.running_total(0) + 2 * 2 * 2 + 2


def test_tie_goes_to_the_player_furthest_back() -> None:
    state = new_game(2)
    state._advance(0, 3)
    state._advance(1, 1)
    state.stage, state.final = "end", [50, 50]
    ranks = {r.seat: r.rank for r in state.result()}
    assert ranks == {0: 2, 1: 1}
    state._advance(1, 2)  # same space, seat 1 on top: seat 0 is further back
    ranks = {r.seat: r.rank for r in state.result()}
    assert ranks == {0: 1, 1: 2}


def test_final_points_and_fountains_public_at_the_end() -> None:
    state = new_game(2)
    state.players[0].fountains = ["villa"]
    assert "fountains" not in state.view(1)["players"][0]
    for _ in range(4):
        enter_scoring(state)
        while state.stage in ("disc", "card"):
            state.apply_action(state.legal_actions()[0])
        while state.stage == "reveal":
            state.apply_action(state.legal_actions()[0])
    assert state.is_terminal()
    view = state.view(1)
    assert view["players"][0]["fountains"] == ["villa"]
    assert [r.score for r in sorted(state.result(), key=lambda r: r.seat)] == [p["final"] for p in view["players"]]
    # The breakdown explains each final score: its parts add up, in this order, labelled in both languages.
    for entry in view["breakdown"]:
        parts = entry["parts"]
        assert [p["part"] for p in parts] == ["cards", "villas", "banner", "frame", "fountains", "leftovers"]
        assert sum(p["points"] for p in parts) == entry["total"] == view["players"][entry["seat"]]["final"]
        assert all(set(p["label"]) == {"de", "en"} for p in parts)


def test_green_card_with_bread_in_addition() -> None:
    state = scoring(("C05", "A01"))
    put(state, 0, "TVE", "c3")
    put(state, 0, "TVW", "d3")
    p = state.players[0]
    p.bread = 3
    assert sorted(a for a in state.legal_actions() if a.startswith("card:2")) == ["card:2:both", "card:2:fulfil"]
    state.apply_action("card:2:both")  # 7 chimneys → 3 bread, plus once more for 3 bread
    assert p.bread == 4


def test_a_red_card_may_be_handed_in_fewer_times_to_fulfil_both_cards() -> None:
    """Issue 13: with 4 coins, "2 herbs → 4" next to "2 fish → 4" gives +8 when the first card is
    handed in once ("gibt er sie mehrfach ab" is the player's choice, coins stand in for wares)."""
    state = scoring(("A06", "A07"))
    p = state.players[0]
    p.wares.update(herbs=0, fish=0)
    p.coins = 4
    vp = p.vp
    assert set(state.legal_actions()) >= {"card:2:fulfil", "card:2:fulfil:1", "card:3:fulfil", "card:3:fulfil:1"}
    state.apply_action("card:2:fulfil:1")
    assert (p.coins, p.vp) == (2, vp + 4)
    assert state.legal_actions() == ["card:3:fulfil"]
    state.apply_action("card:3:fulfil")
    assert (p.coins, p.vp) == (0, vp + 8)


def test_plain_fulfil_still_takes_the_most_and_counts_stay_within_what_is_held() -> None:
    state = scoring(("A06", "A07"))
    p = state.players[0]
    p.wares.update(herbs=5, fish=0)
    p.coins = 0
    legal = state.legal_actions()
    assert "card:2:fulfil:1" in legal and "card:2:fulfil:2" not in legal  # 2 is the most: plain fulfil
    assert not any(a.startswith("card:3:fulfil") for a in legal)
    vp = p.vp
    state.apply_action("card:2:fulfil")
    assert (p.wares["herbs"], p.vp) == (1, vp + 8)


def test_green_cards_have_no_count() -> None:
    state = scoring(("C06", "A01"))
    assert not any(a.startswith("card:2:fulfil:") for a in state.legal_actions())
