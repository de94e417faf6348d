"""What one seat owns: its district, goods, points, banner disc, stored tiles and fountain cards."""

from __future__ import annotations

from typing import Any

from .components import WARES
from .district import District


class Player:
    """Everything one seat owns."""

    __slots__ = ("bread", "coins", "discs", "district", "fountains", "pos", "stamp", "steps", "stored", "vp", "wares")

    def __init__(self, district: District):
        self.district = district
        self.wares: dict[str, int] = dict.fromkeys(WARES, 0)
        self.coins = 0
        self.bread = 0
        self.vp = 0  # starting points, scoring cards and penalties
        self.steps = 0  # banner steps taken = banner points
        self.stamp = 0  # when the disc last arrived on its banner space (higher = on top)
        self.stored: list[str] = []
        self.fountains: list[str] = []
        self.discs = 4
        self.pos: int | None = None

    def copy(self) -> Player:
        other = Player.__new__(Player)
        other.district = self.district.copy()
        other.wares = dict(self.wares)
        other.coins = self.coins
        other.bread = self.bread
        other.vp = self.vp
        other.steps = self.steps
        other.stamp = self.stamp
        other.stored = list(self.stored)
        other.fountains = list(self.fountains)
        other.discs = self.discs
        other.pos = self.pos
        return other

    def to_json(self) -> dict[str, Any]:
        return {
            "district": self.district.to_json(), "wares": dict(self.wares), "coins": self.coins,
            "bread": self.bread, "vp": self.vp, "steps": self.steps, "stamp": self.stamp,
            "stored": list(self.stored), "fountains": list(self.fountains), "discs": self.discs, "pos": self.pos,
        }
