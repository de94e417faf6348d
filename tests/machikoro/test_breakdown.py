"""The end view explains the result: landmarks, the finishing order and the turn each player finished in."""

from __future__ import annotations

from .helpers import new, play


def test_finishing_turn_and_place_are_in_the_breakdown() -> None:
    state = new(2, coins={0: 30}, landmarks={0: ["train_station", "shopping_mall", "amusement_park"]},
                ending="kosmos")
    play(state, "roll:1", "dice:5")  # nothing pays out on a 5 with the start cards
    play(state, "build:radio_tower")
    assert state.is_terminal()
    turn = state.finished_turn(0)
    assert turn == state.turns_of(0) and turn is not None and turn >= 1
    breakdown = {b["seat"]: b for b in state.view(None)["breakdown"]}
    winner = {p["part"]: p for p in breakdown[0]["parts"]}
    assert winner["landmarks"]["points"] == 4 == breakdown[0]["total"]
    assert winner["finish"]["points"] is None
    assert winner["finish"]["detail"] == {"de": f"als 1. fertig, im {turn}. eigenen Zug",
                                          "en": f"finished 1st, in turn {turn} of their own"}
    loser = {p["part"]: p for p in breakdown[1]["parts"]}
    assert loser["finish"]["detail"]["en"].startswith("did not finish (")
    assert state.view(0)["breakdown"] == state.view(None)["breakdown"]
