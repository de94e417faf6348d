"""``ludothek.engine``: the contract every game implements.  See ``docs/engine.md``."""

from .core import (
    CHANCE,
    HIDDEN_ACTION,
    LANGS,
    TERMINAL,
    Game,
    HistoryEntry,
    IllegalAction,
    InvalidOptions,
    Option,
    ReplayError,
    SeatResult,
    State,
    pick,
    ranks_from_keys,
    sample_chance,
)
from .records import RECORD_FORMAT, initial_state, log, record, replay
from .registry import games, load, register

__all__ = [
    "CHANCE",
    "HIDDEN_ACTION",
    "LANGS",
    "RECORD_FORMAT",
    "TERMINAL",
    "Game",
    "HistoryEntry",
    "IllegalAction",
    "InvalidOptions",
    "Option",
    "ReplayError",
    "SeatResult",
    "State",
    "games",
    "initial_state",
    "load",
    "log",
    "pick",
    "ranks_from_keys",
    "record",
    "register",
    "replay",
    "sample_chance",
]
