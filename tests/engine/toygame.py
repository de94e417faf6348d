"""A tiny dice race ("Pig" with a secret bonus card) that exercises the whole contract."""

from __future__ import annotations

import random
from typing import Any

from ludothek.engine import (
    CHANCE,
    TERMINAL,
    Game,
    IllegalAction,
    Option,
    SeatResult,
    State,
    ranks_from_keys,
    score_part,
)

TARGET = {"short": 10, "long": 20}


class PigGame(Game):
    id = "toypig"
    title = {"de": "Schweinchen", "en": "Pig"}
    min_players = 2
    max_players = 3
    options = (Option("length", ("short", "long"), "short", {"de": "Länge", "en": "Length"}),)

    def _new_state(self, num_players: int, options: dict[str, str]) -> State:
        return PigState(self, num_players, options)


class PigState(State):
    def __init__(self, game: Game, num_players: int, options: dict[str, str]):
        super().__init__(game, num_players, options)
        self.scores = [0] * num_players
        self.bonus: list[int | None] = [None] * num_players
        self.turn = 0
        self.pot = 0
        self.rolling = True  # a die roll is due

    def current_player(self) -> int:
        if max(self.scores) >= TARGET[self.options["length"]]:
            return TERMINAL
        if None in self.bonus or self.rolling:
            return CHANCE
        return self.turn

    def legal_actions(self) -> list[str]:
        p = self.current_player()
        if p == TERMINAL:
            return []
        if p == CHANCE:
            if None in self.bonus:
                return [f"bonus:{i}" for i in (1, 2, 3)]
            return [f"die:{i}" for i in range(1, 7)]
        return ["roll", "hold"]

    def _visibility(self, action: str) -> frozenset[int] | None:
        return frozenset({self.bonus.index(None)}) if action.startswith("bonus:") else None

    def _apply(self, action: str) -> None:
        if action.startswith("bonus:"):
            self.bonus[self.bonus.index(None)] = int(action[6:])
        elif action.startswith("die:"):
            self.rolling = False
            value = int(action[4:])
            if value == 1:
                self.pot = 0
                self.turn = (self.turn + 1) % self.num_players
                self.rolling = True
            else:
                self.pot += value
        elif action == "roll":
            self.rolling = True
        elif action == "hold":
            self.scores[self.turn] += self.pot + (self.bonus[self.turn] or 0)
            self.pot = 0
            self.turn = (self.turn + 1) % self.num_players
            self.rolling = True
        else:  # pragma: no cover - _validate keeps this out
            raise IllegalAction(action)

    def view(self, seat: int | None) -> dict[str, Any]:
        return {
            "scores": list(self.scores),
            "pot": self.pot,
            "turn": self.turn,
            "my_bonus": self.bonus[seat] if seat is not None else None,
            "breakdown": [
                {"seat": r.seat, "rank": r.rank, "total": r.score,
                 "parts": [score_part("points", "Punkte", "points", r.score)]}
                for r in self.result()
            ] if self.is_terminal() else None,
        }

    def result(self) -> list[SeatResult]:
        ranks = ranks_from_keys(self.scores)
        return [SeatResult(s, ranks[s], self.scores[s]) for s in range(self.num_players)]

    def _describe(self, action: str, lang: str) -> str:
        return {"de": f"Aktion {action}", "en": f"Action {action}"}[lang]

    def snapshot(self) -> dict[str, Any]:
        return {
            "scores": self.scores, "bonus": self.bonus, "turn": self.turn,
            "pot": self.pot, "rolling": self.rolling,
        }

    def resample_hidden(self, seat: int | None, rng: random.Random) -> State | None:
        other = self.clone()
        assert isinstance(other, PigState)
        other.bonus = [b if s == seat or b is None else rng.choice((1, 2, 3)) for s, b in enumerate(self.bonus)]
        return other


GAME = PigGame()
