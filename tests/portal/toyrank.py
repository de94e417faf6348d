"""A test game whose result is chosen by its players: each seat in turn plays ``score:N``.

Ratings tests use it to finish games with hand-made results (ties, four players) through the
real move path, which rates them.
"""

from __future__ import annotations

from typing import Any

from ludothek.engine import TERMINAL, Game, SeatResult, State, ranks_from_keys, score_part


class RankGame(Game):
    id = "toyrank"
    title = {"de": "Rangspiel", "en": "Ranking game"}
    min_players = 2
    max_players = 4

    def _new_state(self, num_players: int, options: dict[str, str]) -> State:
        return RankState(self, num_players, options)


class RankState(State):
    def __init__(self, game: Game, num_players: int, options: dict[str, str]):
        super().__init__(game, num_players, options)
        self.scores: list[int | None] = [None] * num_players

    def current_player(self) -> int:
        return TERMINAL if None not in self.scores else self.scores.index(None)

    def legal_actions(self) -> list[str]:
        return [] if self.is_terminal() else [f"score:{n}" for n in range(10)]

    def _apply(self, action: str) -> None:
        self.scores[self.scores.index(None)] = int(action.split(":")[1])

    def view(self, seat: int | None) -> dict[str, Any]:
        return {"scores": list(self.scores), "breakdown": [
            {"seat": r.seat, "rank": r.rank, "total": r.score, "parts": [score_part("p", "P", "p", r.score)]}
            for r in self.result()] if self.is_terminal() else None}

    def result(self) -> list[SeatResult]:
        keys = [s or 0 for s in self.scores]
        ranks = ranks_from_keys(keys)
        return [SeatResult(s, ranks[s], keys[s]) for s in range(self.num_players)]

    def _describe(self, action: str, lang: str) -> str:
        return f"{'Punkte' if lang == 'de' else 'score'} {action.split(':')[1]}"

    def snapshot(self) -> dict[str, Any]:
        return {"scores": list(self.scores)}


GAME = RankGame()
