"""Fixed-size tensors from a seat's view and history, shared by the OpenSpiel and PettingZoo adapters.

A view (`State.view(seat)`) is a nested JSON dict whose lists grow and shrink (cards in hand, stations
built), so it has no fixed shape. We flatten it by **feature hashing**: every leaf becomes a
``path`` (keys and list positions, e.g. ``players.1.coins``) and a value; a number adds its signed
logarithm at the bucket of its path, a string or a boolean adds 1 at the bucket of ``path=value``.
The bucket is a CRC32 of that text, so the layout is the same in every process and release (no
Python hash seed). Collisions are possible and rare at these sizes; a learner sees them as noise.
The exact information is always in the string forms (`observation_string`, `information_state_string`).

What a seat may not see never enters: the tensors are built only from ``view(seat)`` and
``history(seat)``, which the engine's conformance suite proves to hide every secret.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

import numpy as np

from ludothek import engine

#: Buckets for the view's features.
VIEW_SIZE = 1024
#: Buckets for the history features of the information-state tensor.
HISTORY_SIZE = 512
#: The most seats any game has (Snowdonia: 5): the seat one-hot has this many places.
MAX_SEATS = 5
#: The last entries of the history that also get a feature of their own with their recency.
RECENT = 8
#: Keys of a view that the tensor leaves out: the legal actions are the action mask, and the
#: sentences of a log or breakdown add nothing a learner can use that the numbers do not hold.
SKIPPED_KEYS = frozenset({"legal_actions", "viewer", "log", "breakdown", "text", "label", "prompt"})

OBSERVATION_SIZE = MAX_SEATS + VIEW_SIZE
INFORMATION_STATE_SIZE = OBSERVATION_SIZE + HISTORY_SIZE


_BUCKETS: dict[tuple[str, int], int] = {}
_BUCKETS_MAX = 500_000


def _bucket(text: str, size: int) -> int:
    """CRC32 bucket of ``text`` (cached: the same paths come back at every step)."""
    key = (text, size)
    b = _BUCKETS.get(key)
    if b is None:
        if len(_BUCKETS) > _BUCKETS_MAX:
            _BUCKETS.clear()
        b = _BUCKETS[key] = zlib.crc32(text.encode()) % size
    return b


def _walk(node: Any, path: str, size: int, num_at: list[int], num_val: list[float], cat_at: list[int]) -> None:
    if isinstance(node, dict):
        for key in sorted(node):
            if key not in SKIPPED_KEYS:
                _walk(node[key], f"{path}.{key}" if path else str(key), size, num_at, num_val, cat_at)
    elif isinstance(node, list | tuple):
        for i, item in enumerate(node):
            _walk(item, f"{path}.{i}", size, num_at, num_val, cat_at)
    elif isinstance(node, bool | str):
        cat_at.append(_bucket(f"{path}={node}", size))
    elif isinstance(node, int | float):
        num_at.append(_bucket(path, size))
        num_val.append(float(node))


def view_features(view: dict[str, Any], out: np.ndarray) -> None:
    """Add the hashed features of ``view`` into ``out`` (length `VIEW_SIZE`): numbers as signed
    ``log1p`` at their path's bucket, strings and booleans as 1 at the bucket of ``path=value``."""
    num_at: list[int] = []
    num_val: list[float] = []
    cat_at: list[int] = []
    _walk(view, "", len(out), num_at, num_val, cat_at)
    if num_at:
        vals = np.asarray(num_val, dtype=np.float64)
        np.add.at(out, num_at, (np.sign(vals) * np.log1p(np.abs(vals))).astype(np.float32))
    if cat_at:
        np.add.at(out, cat_at, np.float32(1.0))


def history_features(entries: list[engine.HistoryEntry], out: np.ndarray) -> None:
    """Counts of (seat, action) over the seat's redacted history, plus the last `RECENT` entries by recency."""
    size = len(out)
    for entry in entries:
        out[_bucket(f"{entry.seat}:{entry.action}", size)] += 1.0
    for age, entry in enumerate(reversed(entries[-RECENT:])):
        out[_bucket(f"recent{age}:{entry.seat}:{entry.action}", size)] += 1.0


def observation_tensor(state: engine.State, seat: int) -> np.ndarray:
    """The seat one-hot followed by the hashed view (`OBSERVATION_SIZE` floats)."""
    out = np.zeros(OBSERVATION_SIZE, np.float32)
    fill_observation(state, seat, out)
    return out


def fill_observation(state: engine.State, seat: int, out: np.ndarray) -> None:
    out[:] = 0.0
    out[seat] = 1.0
    view_features(state.view(seat), out[MAX_SEATS:MAX_SEATS + VIEW_SIZE])


def fill_information_state(state: engine.State, seat: int, out: np.ndarray) -> None:
    """The observation followed by the hashed history the seat has seen (`INFORMATION_STATE_SIZE`)."""
    fill_observation(state, seat, out[:OBSERVATION_SIZE])
    history_features(state.history(seat), out[OBSERVATION_SIZE:])


def observation_string(state: engine.State, seat: int | None) -> str:
    """The seat's view as compact JSON (exact; for debugging and for tabular methods); ``None``: a spectator."""
    return json.dumps(state.view(seat), sort_keys=True, separators=(",", ":"))


def information_state_string(state: engine.State, seat: int) -> str:
    """The seat's redacted history, one entry per action (exact, with perfect recall)."""
    return " ".join(f"{'c' if e.seat == engine.CHANCE else e.seat}:{e.action}" for e in state.history(seat))
