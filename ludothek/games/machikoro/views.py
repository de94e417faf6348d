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
from .notation import TURN

if TYPE_CHECKING:
    from .rules import MachiKoroState


#: Card ids in table order (``ESTABLISHMENTS[k].id`` is the id of kind ``k``, as the state's lists count them).
_KIND_IDS: tuple[str, ...] = tuple(e.id for e in ESTABLISHMENTS)
#: (id, bit) of each landmark, in table order.
_LANDMARK_BITS: tuple[tuple[str, int], ...] = tuple((m.id, m.bit) for m in LANDMARKS)
assert all(e.index == k for k, e in enumerate(ESTABLISHMENTS))


def _city(state: MachiKoroState, seat: int, placing: list[int], terminal: bool) -> dict[str, Any]:
    """One seat's city.  ``placing`` and ``terminal`` are the state's, passed in: they are the same for all seats.

    It reads the state's lists directly (cards by kind index, landmark bit
    masks) rather than through ``count``/``has_built``/``landmark_active``
    per card, which went by id through two lookups each: the views are built
    for every answer after a move, and that was most of their cost (issue 14).
    The values are the same those accessors give.
    """
    cards = state._cards[seat]
    built = state._built[seat]
    active = state._active[seat]
    return {
        "seat": seat,
        "player": seat + 1,
        "coins": state._coins[seat],
        "establishments": {kind: n for kind, n in zip(_KIND_IDS, cards, strict=True) if n},
        "landmarks": {
            lm: ("active" if active & bit else "built" if built & bit else "unbuilt")
            for lm, bit in _LANDMARK_BITS
        },
        "finished": state._out[seat] or (terminal and placing[:1] == [seat]),
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
            turns = {"de": TURN.count(played, "de"), "en": TURN.count(played, "en")}
            if seat in placing:
                place = placing.index(seat) + 1
                detail = {"de": f"{_ordinal(place, 'de')} Platz, nicht fertig ({turns['de']})",
                          "en": f"placed {_ordinal(place, 'en')}, did not finish ({turns['en']})"}
            else:
                detail = {"de": f"nicht fertig ({turns['de']})", "en": f"did not finish ({turns['en']})"}
        # The order of finishing, not the landmarks, places the seats (`MachiKoroState.result`).
        parts.append(score_part("finish", "Zieleinlauf", "finish", None, detail, decides=True))
        out.append({"seat": seat, "rank": r.rank, "total": r.score, "parts": parts})
    return out


def build_view(state: MachiKoroState, seat: int | None) -> dict[str, Any]:
    """The JSON view for ``seat`` (``None``: a spectator)."""
    to_move = state.current_player()
    market: dict[str, Any] = {"piles": dict(zip(_KIND_IDS, state._supply, strict=True))}
    if state.options["market"] == "komme_was_wolle":
        market["deck"] = state.deck_count()
        market["deck_by_kind"] = dict(zip(_KIND_IDS, state._deck, strict=True))
    resume = state.next_turn()
    placing = state.placing()
    terminal = state.is_terminal()
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
        "cities": [_city(state, p, placing, terminal) for p in range(state.num_players)],
        "market": market,
        "placing": state.placing(),
        "legal_actions": state.legal_actions() if seat is not None and seat == to_move else [],
        "result": state.result_json() if terminal else None,
        "breakdown": breakdown(state) if terminal else None,
    }
