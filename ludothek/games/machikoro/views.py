"""What a seat sees of a Machi Koro position.

Everything in Machi Koro is open: coins, cities, landmarks, the display and
(with "Komme, was wolle") how many cards of each kind are left in the deck,
as Yucata shows in brackets.  The only unknown is the order of the deck,
which the state does not hold at all (each draw is a chance action), so no
view can leak it.  The view holds every public fact that decides the position
(also the number of dice chosen, whether the Radio Tower re-roll is used, and
who plays once the display is refilled).  The seat to move also gets its legal
actions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ludothek.engine import score_part

from .cards import ESTABLISHMENTS, LANDMARKS

if TYPE_CHECKING:
    from .rules import MachiKoroState


def _city(state: MachiKoroState, seat: int) -> dict[str, Any]:
    placing = state.placing()
    return {
        "seat": seat,
        "player": seat + 1,
        "coins": state.coins(seat),
        "establishments": {e.id: n for e in ESTABLISHMENTS if (n := state.count(seat, e.id))},
        "landmarks": {
            m.id: (
                "active"
                if state.landmark_active(seat, m.id)
                else "built"
                if state.has_built(seat, m.id)
                else "unbuilt"
            )
            for m in LANDMARKS
        },
        "finished": state.is_out(seat) or (state.is_terminal() and placing[:1] == [seat]),
        "place": placing.index(seat) + 1 if seat in placing else None,
    }


def _ordinal(n: int, lang: str) -> str:
    if lang == "de":
        return f"{n}."
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def breakdown(state: MachiKoroState) -> list[dict[str, Any]]:
    """The end of the game explained: landmarks (the score), finishing place and the turn of finishing."""
    placing = state.placing()
    out = []
    for r in state.result():
        seat = r.seat
        built = sum(1 for m in LANDMARKS if state.has_built(seat, m.id))
        parts = [score_part("landmarks", "Großprojekte gebaut", "landmarks built", built)]
        turn = state.finished_turn(seat)
        if turn is not None:
            place = placing.index(seat) + 1
            detail = {
                "de": f"als {_ordinal(place, 'de')} fertig, im {turn}. eigenen Zug",
                "en": f"finished {_ordinal(place, 'en')}, in turn {turn} of their own",
            }
        else:
            played = state.turns_of(seat)
            turns = {"de": f"{played} {'Zug' if played == 1 else 'Züge'}",
                     "en": f"{played} {'turn' if played == 1 else 'turns'}"}
            if seat in placing:
                place = placing.index(seat) + 1
                detail = {"de": f"{_ordinal(place, 'de')} Platz, nicht fertig ({turns['de']})",
                          "en": f"placed {_ordinal(place, 'en')}, did not finish ({turns['en']})"}
            else:
                detail = {"de": f"nicht fertig ({turns['de']})", "en": f"did not finish ({turns['en']})"}
        parts.append(score_part("finish", "Zieleinlauf", "finish", None, detail))
        out.append({"seat": seat, "rank": r.rank, "total": r.score, "parts": parts})
    return out


def build_view(state: MachiKoroState, seat: int | None) -> dict[str, Any]:
    """The JSON view for ``seat`` (``None``: a spectator)."""
    to_move = state.current_player()
    market: dict[str, Any] = {"piles": {e.id: state.pile(e.id) for e in ESTABLISHMENTS}}
    if state.options["market"] == "komme_was_wolle":
        market["deck"] = state.deck_count()
        market["deck_by_kind"] = {e.id: state.deck_count(e.id) for e in ESTABLISHMENTS}
    resume = state.next_turn()
    return {
        "game": "machikoro",
        "you": seat,
        "options": dict(state.options),
        "to_move": to_move,
        "turn": state.turn,
        "extra_turn": state.extra_turn,
        "phase": state.phase,
        "dice": list(state.dice()),
        "dice_count": state.dice_count,
        "rerolled": state.rerolled,
        "next_turn": (
            None if resume is None else {"seat": resume[0], "player": resume[0] + 1, "extra_turn": resume[1]}
        ),
        "cities": [_city(state, p) for p in range(state.num_players)],
        "market": market,
        "placing": state.placing(),
        "legal_actions": state.legal_actions() if seat is not None and seat == to_move else [],
        "result": state.result_json() if state.is_terminal() else None,
        "breakdown": breakdown(state) if state.is_terminal() else None,
    }
