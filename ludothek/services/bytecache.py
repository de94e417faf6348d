"""A least-recently-used cache counted in bytes, and the estimate it counts with.

Issue 28 bounded the replay books by bytes (`ludothek.services.community.replaylimits`); issue 34
bounds the state cache the same way (`ludothek.services.runtime.StateCache`): a count of entries
says nothing about memory when one game holds 40 KB and another 4 MB, and a count small enough
for the large ones drops the small ones that a site with thousands of running games keeps
touching.  Both caches are this class.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, Protocol, TypeVar


class Sized(Protocol):
    def size_estimate(self) -> int: ...


K = TypeVar("K", bound=Hashable)
V = TypeVar("V", bound=Sized)


class ByteCache(Generic[K, V]):
    """Least recently used values within a budget of bytes (each value's `size_estimate`).

    A value larger than the whole budget is not kept at all (it is still served to its request).
    ``entries`` (oldest first) and ``lock`` are public: the move path looks a state up under the
    lock itself (`ludothek.services.play.Play._apply`), without a call for the hottest look-up.
    A value's size is measured when it is put; one that grows in place (a game played on) is
    measured again when it is put again.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.entries: OrderedDict[K, V] = OrderedDict()
        self.sizes: dict[K, int] = {}
        self._bytes = 0
        self.lock = threading.Lock()

    @property
    def bytes(self) -> int:
        return self._bytes

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, key: K) -> V | None:
        with self.lock:
            found = self.entries.get(key)
            if found is not None:
                self.entries.move_to_end(key)
            return found

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` (again: its size is measured anew), dropping the least recently used past the budget."""
        size = value.size_estimate()
        with self.lock:
            self._forget(key)
            if size > self.max_bytes:
                return
            self.entries[key] = value
            self.sizes[key] = size
            self._bytes += size
            while self._bytes > self.max_bytes:
                oldest, _ = self.entries.popitem(last=False)
                self._bytes -= self.sizes.pop(oldest)

    def drop(self, key: K) -> None:
        with self.lock:
            self._forget(key)

    def _forget(self, key: K) -> None:
        if self.entries.pop(key, None) is not None:
            self._bytes -= self.sizes.pop(key, 0)


def deep_size(obj: object, seen: set[int] | None = None, skip: frozenset[str] = frozenset()) -> int:
    """Bytes held by ``obj`` and what it refers to (containers, instances), each object counted once.

    An estimate in the manner of ``sys.getsizeof``: it follows dicts, lists, tuples, sets and
    instance attributes (``skip`` names attributes of ``obj`` itself not to follow).  Shared
    immutable objects (small ints, interned strings, module-level data) are counted where met.
    """
    seen = set() if seen is None else seen
    total = 0
    todo: list[tuple[object, frozenset[str]]] = [(obj, skip)]
    while todo:
        item, leave = todo.pop()
        if id(item) in seen or isinstance(item, type):
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            todo.extend((v, frozenset()) for v in item.values())
            todo.extend((k, frozenset()) for k in item)
        elif isinstance(item, (list, tuple, set, frozenset)):
            todo.extend((v, frozenset()) for v in item)
        elif isinstance(item, (str, bytes, int, float, bool)) or item is None:
            continue
        else:
            attrs = getattr(item, "__dict__", None)
            if attrs is not None:
                total += sys.getsizeof(attrs)
                todo.extend((v, frozenset()) for k, v in attrs.items() if k not in leave)
            for name in getattr(type(item), "__slots__", ()):
                if hasattr(item, name) and name not in leave:
                    todo.append((getattr(item, name), frozenset()))
    return total


__all__ = ["ByteCache", "Sized", "deep_size"]
