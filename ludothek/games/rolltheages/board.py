"""One player's score sheet and pegboard: cities, monuments, goods, food, developments, disasters."""

from __future__ import annotations

from typing import Any

from .components import (
    CAPACITY,
    CITY_COSTS,
    DEVELOPMENT_BY_ID,
    GOODS,
    MAX_CITIES,
    MONUMENT_BY_ID,
    START_CITIES,
    START_FOOD,
    STONE,
    goods_value,
)


class Board:
    """Mutable per-player record; copied explicitly for fast clones."""

    __slots__ = (
        "cities",
        "city_work",
        "developments",
        "disasters",
        "food",
        "goods",
        "monument_points",
        "monument_work",
    )

    def __init__(self, monuments: tuple[str, ...]):
        self.cities = START_CITIES
        #: Workers already placed on the city under construction (cities are built in order).
        self.city_work = 0
        #: Boxes marked per monument in play.
        self.monument_work: dict[str, int] = dict.fromkeys(monuments, 0)
        #: Points scored per completed monument (first or later value).
        self.monument_points: dict[str, int] = {}
        #: Units per good, in the order wood, stone, pottery, cloth, metal.
        self.goods: list[int] = [0] * len(GOODS)
        self.food = START_FOOD
        #: Developments in the order they were bought.
        self.developments: list[str] = []
        #: Disaster (penalty) points, famine included.
        self.disasters = 0

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other.cities = self.cities
        other.city_work = self.city_work
        other.monument_work = dict(self.monument_work)
        other.monument_points = dict(self.monument_points)
        other.goods = list(self.goods)
        other.food = self.food
        other.developments = list(self.developments)
        other.disasters = self.disasters
        return other

    # ----- queries -------------------------------------------------------------------
    def has(self, development: str) -> bool:
        return development in self.developments

    def param(self, development: str, key: str, default: int = 0) -> int:
        """A development's number (e.g. Coinage's coin value) if owned, else ``default``."""
        return DEVELOPMENT_BY_ID[development].params[key] if development in self.developments else default

    def next_city_cost(self) -> int | None:
        """Workers the next city needs in total, or ``None`` with all 7 cities built."""
        if self.cities >= MAX_CITIES:
            return None
        return CITY_COSTS[self.cities - START_CITIES]

    def goods_total(self) -> int:
        return sum(self.goods)

    def goods_value(self) -> int:
        return goods_value(self.goods)

    def score_parts(self) -> dict[str, int]:
        """The parts of the score: monuments, developments, Architecture and Empire bonuses, disasters (negative)."""
        return {
            "monuments": sum(self.monument_points.values()),
            "developments": sum(DEVELOPMENT_BY_ID[d].points for d in self.developments),
            "architecture": self.param("architecture", "bonus_per_monument") * len(self.monument_points),
            "empire": self.param("empire", "bonus_per_city") * self.cities,
            "disasters": -self.disasters,
        }

    def score(self) -> int:
        """Development and monument points plus Architecture and Empire bonuses, minus disasters."""
        return sum(self.score_parts().values())

    # ----- changes -------------------------------------------------------------------
    def add_goods(self, count: int) -> tuple[list[int], int]:
        """Collect ``count`` goods in the fixed order with wrapping; a full row loses its good.

        Returns the units actually added per good (Quarrying's bonus stone
        included) and that bonus on its own, so that a log can tell goods lost
        to full rows apart from the extra stone.
        """
        added = [0] * len(GOODS)
        rows = len(GOODS)
        for i in range(count):
            row = i % rows
            if self.goods[row] < CAPACITY[row]:
                self.goods[row] += 1
                added[row] += 1
        bonus = 0
        if count > STONE and self.has("quarrying") and self.goods[STONE] < CAPACITY[STONE]:
            bonus = self.param("quarrying", "bonus")
            self.goods[STONE] += bonus
            added[STONE] += bonus
        return added, bonus

    def monument_remaining(self, monument: str) -> int:
        return MONUMENT_BY_ID[monument].workers - self.monument_work[monument]

    def to_json(self) -> dict[str, Any]:
        return {
            "cities": self.cities,
            "city_work": self.city_work,
            "monument_work": dict(self.monument_work),
            "monument_points": dict(self.monument_points),
            "goods": list(self.goods),
            "food": self.food,
            "developments": list(self.developments),
            "disasters": self.disasters,
        }
