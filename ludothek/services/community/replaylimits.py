"""What one replay may cost: bounds on imported records, a CPU budget, a gate, and a cache by bytes.

A record from outside is replayed in full before anything is shown, so its length is the work
a stranger can ask of the server.  Issue 28 showed a 681 KB record of 9,850 move/undo pairs
costing a minute of CPU and 200 MB kept in the cache.  Replaying is linear now (see
`ludothek.engine.State.undo`); on top of that an imported record is refused with 413 when it
has more entries or undos than any real game (`ReplayLimits`), or when replaying it takes
more than its CPU budget (`Budget`).  At most a few records are replayed at once per process
(`WorkGate`), and the books kept for later steps are counted in bytes (`BookCache`).
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

from ludothek.services.bytecache import ByteCache, Sized, deep_size
from ludothek.services.workgate import WorkGate
from ludothek.storage.errors import BadRequest


class RecordTooBig(BadRequest):
    """An imported record that asks for more work than any real game (413, the message says which bound)."""

    status = 413
    code = "record_too_big"


@dataclass(frozen=True)
class ReplayLimits:
    """Bounds on one imported record (defaults: `ludothek.portal.settings.Settings`, ``replay_*``).

    Random play ends every game here within 600 entries (Carpe Diem with 4 players: about 550;
    Snowdonia with 5: about 400); a person who takes back a move now and then adds a few.
    """

    #: The most entries (actions, chance outcomes and undos).
    max_entries: int = 5_000
    #: The most undo entries.
    max_undos: int = 1_000
    #: The most CPU seconds (of the replaying thread) that replaying one record may take.
    cpu_seconds: float = 1.5

    def check(self, actions: list[Any]) -> None:
        """`RecordTooBig` for a record longer than any real game (counted before anything is replayed)."""
        if len(actions) > self.max_entries:
            raise RecordTooBig(f"the record has {len(actions)} entries; at most {self.max_entries} are accepted",
                               code_key="record_too_long", entries=len(actions), limit=self.max_entries)
        undos = sum(1 for a in actions if isinstance(a, dict) and a.get("action") == "undo" and a.get("seat") != "chance")
        if undos > self.max_undos:
            raise RecordTooBig(f"the record takes back {undos} moves; at most {self.max_undos} undos are accepted",
                               code_key="record_too_many_undos", undos=undos, limit=self.max_undos)


#: The budget is looked at every this many entries (a clock read costs about as much as an entry).
CHECK_EVERY = 16


class Budget:
    """A CPU budget for one replay, in seconds of the replaying thread's own CPU time.

    Thread time, not wall time: a replay that waits for the GIL while others run is not charged
    for their work.  `tick` is handed to the replaying code and raises `RecordTooBig` past it.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.start = time.thread_time()
        #: Entries replayed (the work done, for tests and the benchmark).
        self.entries = 0

    def tick(self, index: int) -> None:
        self.entries += 1
        if self.entries % CHECK_EVERY == 0 and time.thread_time() - self.start > self.seconds:
            raise RecordTooBig(f"the record takes more than {self.seconds:g} s to replay (stopped at entry {index + 1})",
                               code_key="record_too_costly", seconds=f"{self.seconds:g}", n=index + 1)


def replay_gate(concurrency: int = 1, queue: int = 4) -> WorkGate:
    """The gate of replays: pure Python under the GIL, each replay takes its turns at the interpreter
    from the requests of others, and a queue of waiting threads ties up the server's worker threads."""
    return WorkGate(concurrency, queue, message="the server is busy replaying other records; try again in a moment",
                    code_key="replays_busy")


V = TypeVar("V", bound=Sized)


class BookCache(ByteCache[Hashable, V]):
    """Least recently used books within a budget of bytes (each book's `size_estimate`).

    A book larger than the whole budget is not kept at all (it is still served to its request).
    The state cache is the same class (`ludothek.services.bytecache`, issue 34).
    """


__all__ = ["BookCache", "Budget", "RecordTooBig", "ReplayLimits", "deep_size", "replay_gate"]
