"""`State.apply_action` is the engine's only: games speed it up through `_apply_fast`, never by overriding it."""

from __future__ import annotations

import pytest

from ludothek import engine as eng
from ludothek.engine import IllegalAction, State, registry

from .toygame import GAME, PigState


@pytest.mark.parametrize("method", ["apply_action", "_apply_checked"])
def test_a_state_class_may_not_override_the_checked_apply(method: str) -> None:
    with pytest.raises(TypeError, match=f"must not override State.{method}"):
        type("Cheater", (PigState,), {method: lambda self, *args: None})


class FastPig(PigState):
    """The toy game with a fast path that takes only "hold" and leaves everything else to the engine."""

    calls = 0

    def _apply_fast(self, action: str, seat: int | None) -> bool:
        FastPig.calls += 1
        if action != "hold" or self.current_player() != self.turn or seat not in (None, self.turn):
            return False
        self._apply(action)
        self._history.append(eng.HistoryEntry(self.turn, action))
        return True


def _pig_at_decision() -> FastPig:
    state = FastPig(GAME, 2, GAME.default_options())
    for action in ("bonus:1", "bonus:2", "die:4"):
        state.apply_action(action)
    assert state.current_player() == 0
    return state


def test_the_fast_path_is_used_and_the_engine_refuses_what_it_declines() -> None:
    state = _pig_at_decision()
    FastPig.calls = 0
    with pytest.raises(IllegalAction, match=r"it is not your turn \(Ann is to move\)"):
        state.apply_action("hold", seat=1, names=["Ann", "Bea"])
    with pytest.raises(IllegalAction, match="'jump' is not a legal action now"):
        state.apply_action("jump", seat=0)
    assert FastPig.calls == 2 and len(state.history()) == 3  # both declined, nothing changed
    state.apply_action("hold", seat=0)
    assert FastPig.calls == 3 and state.history()[-1].action == "hold" and state.scores[0] == 5


def test_every_registered_game_keeps_the_engine_apply() -> None:
    classes: list[type[State]] = []
    for game_id, module in registry.GAME_MODULES.items():
        eng.load(game_id)  # a state class overriding the final methods would fail to import
        todo = list(State.__subclasses__())
        mine: list[type[State]] = []
        while todo:
            cls = todo.pop()
            if cls.__module__.startswith(module + "."):
                mine.append(cls)
            todo.extend(cls.__subclasses__())
        assert mine, game_id
        classes += mine
    for cls in classes:
        assert cls.apply_action is State.apply_action, cls
        assert cls._apply_checked is State._apply_checked, cls
