"""Handing a turn on: the rule "a player may take back any decision of their own turn until the turn is
handed on" (issue 29).

After a person's action the move path (`ludothek.services.play.Play.submit`) resolves at once the chance
steps that belong to their own turn (`ludothek.engine.State.turn_seat`: the dice they chose to roll, the
card their action draws).  If the turn then belongs to someone else, or to nobody (the next turn's
opening roll, a round's upkeep), the turn is *handed on*, and unless the player chose to hand on at once
it is first left **pending**: the game row names the seat and when the turn passes on by itself
(``games.handover_seat``, ``games.handover_due``), nobody is to move (``to_move`` is -1), the next turn's
chance steps wait, no bot moves, and the next seat's moves are refused (`HandoverPending`).  Meanwhile
the player may take back their decisions (`undo_refusal`) and confirm the turn (`Play.hand_on`), or the
clock job hands it on when it is due (`Play.hand_on_due`).  Nothing revealed is ever taken back: a chance
step that was drawn ends what can be undone, as the engine already rules.

Clocks: the player's clock stops with the action that ends their turn, as before; the next player's clock
(and a time bank's deduction) starts when the turn is handed on.  The grace period is seconds against
days, so nobody's time is lost to it.  "Your turn" mails and live notices go out at the hand-on.

Bots hand on at once, always.  The grace period is the person's own setting (`GRACE_CHOICES`); without
one, the site's default (`Play.default_grace`; the portal's default is a few seconds).
"""

from __future__ import annotations

from ludothek.engine import CHANCE, State, sample_chance, seat_name
from ludothek.storage.errors import BadRequest, Conflict
from ludothek.storage.info import GameInfo

from .tracked import CHANCE_RNG, Tracked

#: The grace periods a person may choose, in seconds (0: hand the turn on at once).
GRACE_CHOICES = (0, 5, 10, 30)
#: The portal's default for people who chose none: long enough to notice a slip and take it back.
DEFAULT_GRACE = 5


class HandoverPending(Conflict):
    """A move while a turn waits for its player's confirmation (409 ``handover_pending``)."""

    code = "handover_pending"


def check_grace(seconds: object) -> int:
    """A grace period a person may choose, or `BadRequest` naming the choices."""
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds not in GRACE_CHOICES:
        raise BadRequest(f"the time to take back a turn is one of {', '.join(map(str, GRACE_CHOICES))} seconds",
                         code_key="bad_grace")
    return seconds


def resolve_own_chance(tracked: Tracked, mover: int) -> list[tuple[int, str]]:
    """Draw the chance steps that belong to ``mover``'s own turn (their dice, their draw), and stop at the
    first that does not (the next turn's roll, a round's upkeep)."""
    out: list[tuple[int, str]] = []
    state = tracked.state
    while state.current_player() == CHANCE and state.turn_seat() == mover:
        action = sample_chance(state, CHANCE_RNG)
        tracked.apply(CHANCE, action)
        out.append((CHANCE, action))
    return out


def hands_on(state: State, mover: int) -> bool:
    """Whether ``mover``'s action (and their own chance steps) ended their turn: the turn is someone
    else's or nobody's now.  Never at the end of the game: there is nothing to hand on."""
    return not state.is_terminal() and state.turn_seat() != mover


def undo_refusal(info: GameInfo, state: State, seat: int, names: list[str] | None = None) -> str | None:
    """Why ``seat`` may not take back its last action now (``None``: it may).

    The engine's rule (own last action, nothing drawn and nobody else acted since), and the turn must
    not have been handed on: it is ``seat``'s hand-over that is pending, or ``seat``'s turn is still in
    progress.
    """
    reason = state.undo_refusal(seat)
    if reason is not None:
        return reason
    if info.handover_seat is not None:
        if info.handover_seat == seat:
            return None
        return f"{_name(info, info.handover_seat)} has not handed the turn on yet"
    if state.turn_seat() != seat:
        return "your turn has been handed on, so it can no longer be taken back"
    return None


def pending_refusal(info: GameInfo) -> HandoverPending:
    """The refusal of a move while ``info``'s hand-over is pending."""
    assert info.handover_seat is not None
    name = _name(info, info.handover_seat)
    return HandoverPending(f"waiting for {name} to confirm their turn", code_key="handover_pending", name=name)


def _name(info: GameInfo, seat: int) -> str:
    names = info.seat_names()
    return names[seat] if 0 <= seat < len(names) else seat_name(seat)


__all__ = ["DEFAULT_GRACE", "GRACE_CHOICES", "HandoverPending", "check_grace", "hands_on", "pending_refusal",
           "resolve_own_chance", "undo_refusal"]
