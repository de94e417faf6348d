"""Weather forecast and work rates."""

from __future__ import annotations

import pytest

from .helpers import new, place, raw, settle


def finish_round(st) -> None:  # type: ignore[no-untyped-def]
    place(st, {s: ["G", "G"] for s in range(st.num_players)}, then_settle=False)


@pytest.mark.parametrize(
    ("middle", "excavate", "lay"),
    [(4, 4, 3), (1, 1, 1), (26, 2, 2)],  # backs: 4 sun, 1 rain, 26 fog
)
def test_weather_moves_the_work_rates(middle: int, excavate: int, lay: int) -> None:
    st = new(2, row=(2, middle, 3))
    assert (st.rate("excavate"), st.rate("lay_track")) == (2, 2)
    finish_round(st)
    settle(st)
    assert (st.rate("excavate"), st.rate("lay_track")) == (excavate, lay)


def test_rates_stop_at_the_ends_of_the_tracks() -> None:
    st = new(2, row=(2, 4, 3))
    st.rates = {"excavate": 5, "lay_track": 2}
    finish_round(st)
    settle(st)
    assert st.rates == {"excavate": 5, "lay_track": 2}
    st = new(2, row=(2, 1, 3))
    st.rates = {"excavate": 0, "lay_track": 0}
    finish_round(st)
    settle(st)
    assert st.rates == {"excavate": 0, "lay_track": 0}


def test_forecast_shifts_and_takes_the_back_of_the_top_card() -> None:
    st = new(2, row=(4, 1, 26))  # forecast: -, rain, fog
    finish_round(st)
    raw(st, "draw:30")  # refill: the card on position 1 (#4) is discarded, one new card
    assert st.discard == [4] and st.row == [1, 26, 30]
    # the weather of the new top card: probability by the backs left in the deck
    probs = dict(st.chance_outcomes())
    deck = st.deck
    backs = [st.scen.contracts[c].back for c in deck]
    assert probs == pytest.approx({f"forecast:{w}": backs.count(w) / len(deck) for w in ("sun", "rain", "fog")})
    raw(st, "forecast:sun")
    assert st.forecast == ["rain", "fog", "sun"] and st.top_back == "sun"
    settle(st)
    assert st.round == 2 and st.weather() == "rain"
    # the next card drawn is the top card, so it must have a sun back
    finish_round(st)
    assert all(st.scen.contracts[int(a[5:])].back == "sun" for a in st.legal_actions())


def test_first_round_has_no_weather() -> None:
    st = new(2, row=(26, 30, 7))  # all fog backs, but the first current space is empty
    assert st.weather() is None and not st.fog()
    assert "place:B1" in st.legal_actions()
