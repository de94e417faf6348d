"""State snapshots: a live `State` to bytes and back, so that a stored game need not be replayed.

A record (`ludothek.engine.records`) is the source of truth: it replays to the game on any server
that has the same rules.  Replaying costs time in proportion to the game's length, though, and a
site with many running games keeps touching games that are not in any cache (issue 34).  A
snapshot is the other way round: it restores exactly the position the record replays to, in time
that does not grow with the game, but only on a server with the very same code.  So it is never
the source of truth; a loader that meets anything it does not recognise raises `SnapshotError`
and the caller replays the record instead (and usually writes a new snapshot).

The format (``docs/engine.md``, "Snapshots")::

    b"LDSN" | format version (1 byte) | header length (4 bytes, big endian) | header (JSON) | body

The header names the game, the rules version, the player count, the options, the number of
history entries (``seq``), a fingerprint of the code of the engine and the game, and how the body
is compressed.  The body is a pickle (protocol 5) of the state's own attributes, read back by an
unpickler that only accepts the classes of the engine, of that game's package and a few builtin
containers.  Three parts of a state are written specially:

- the game object and whatever a fresh state of the same game, players and options shares with
  every other fresh state (the game's tables: Snowdonia's map, Carpe Diem's components) are
  written as references and restored to the very objects of this process;
- the history is written as its distinct entries plus one index per entry (a long game repeats
  few entries), so restoring 5,000 entries costs a list look-up each rather than an object each;
- the undo bookkeeping (``State._undo_memo``) is written as it stands, so the restored state
  answers ``can_undo`` and ``undo`` without walking its history once.

The fingerprint is a hash of the source of ``ludothek/engine/core.py`` and of every module of
the game's package: a state's attributes are whatever its code makes them, so a snapshot is only
trusted by the code that wrote it.  A deployment that changes a game's code makes its snapshots
fall back to replay once; the rules version still decides whether records replay at all.
"""

from __future__ import annotations

import hashlib
import io
import json
import pickle
import struct
import sys
import zlib
from array import array
from collections.abc import Mapping
from functools import cache
from operator import itemgetter
from pathlib import Path
from typing import Any

from .core import Game, HistoryEntry, State
from .registry import load as load_game

#: The first bytes of every snapshot.
MAGIC = b"LDSN"
#: The version of the layout described in the module docstring; a loader refuses any other.
FORMAT_VERSION = 1
#: The attributes of `State` written specially (see the module docstring).
_SPECIAL = ("game", "_history", "_in_force_memo")
#: Bodies up to this many bytes are stored as they are; longer ones are compressed (zlib, level 1).
COMPRESS_FROM = 512
_HEAD = struct.Struct(">4sBI")
#: Builtin classes a body may name (containers and the sentinel ``object()``).
_BUILTINS = {("builtins", name) for name in ("set", "frozenset", "object", "complex", "bytearray", "slice")} | {
    ("collections", name) for name in ("OrderedDict", "deque", "defaultdict", "Counter")}


class SnapshotError(ValueError):
    """A snapshot that this server cannot trust: damaged, of another format, game, rules or code.

    The caller replays the record instead; nothing of the snapshot is used.
    """


def _package_of(game: Game) -> str:
    module = type(game).__module__
    return module.rsplit(".", 1)[0] if "." in module else module


@cache
def _fingerprint_of(package: str) -> str:
    """A hash of the engine's and the game package's source (see the module docstring)."""
    digest = hashlib.sha256()
    files = [Path(__file__).with_name("core.py"), Path(__file__)]
    module = sys.modules.get(package)
    paths = getattr(module, "__path__", None)
    if paths:
        for folder in paths:
            files.extend(sorted(Path(folder).rglob("*.py")))
    else:
        file = getattr(module, "__file__", None)
        if file:
            files.append(Path(file))
    for path in files:
        digest.update(path.name.encode())
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"?")
    return digest.hexdigest()[:32]


def fingerprint(game: Game) -> str:
    """The code fingerprint a snapshot of ``game`` carries (cached per process)."""
    return _fingerprint_of(_package_of(game))


def _options_key(options: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((str(k), str(v)) for k, v in options.items()))


class _Shared:
    """The objects every fresh state of one game, player count and options shares, by reference number."""

    def __init__(self, game: Game, players: int, options: Mapping[str, str]) -> None:
        first, second = game.new_state(players, dict(options)), game.new_state(players, dict(options))
        self.objects: list[object] = [game]
        self.ids: dict[int, int] = {id(game): 0}
        todo = [value for key, value in first.__dict__.items()
                if key not in _SPECIAL and second.__dict__.get(key, _MISSING) is value]
        while todo:
            item = todo.pop()
            if isinstance(item, (str, bytes, int, float, bool, type)) or item is None or id(item) in self.ids:
                continue
            self.ids[id(item)] = len(self.objects)
            self.objects.append(item)  # kept alive here, so its id stays its own
            if isinstance(item, dict):
                todo.extend(item.values())
                todo.extend(item.keys())
            elif isinstance(item, (list, tuple, set, frozenset)):
                todo.extend(item)
            else:
                attrs = getattr(item, "__dict__", None)
                if isinstance(attrs, dict):
                    todo.extend(attrs.values())
                for name in getattr(type(item), "__slots__", ()):
                    if hasattr(item, name):
                        todo.append(getattr(item, name))


_MISSING = object()


@cache
def _shared(game_id: str, game_object_id: int, players: int, options: tuple[tuple[str, str], ...]) -> _Shared:
    return _Shared(load_game(game_id), players, dict(options))


def _shared_for(game: Game, players: int, options: Mapping[str, str]) -> _Shared:
    return _shared(game.id, id(game), players, _options_key(options))


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO, shared: _Shared) -> None:
        super().__init__(file, protocol=5)
        self._ids = shared.ids

    def persistent_id(self, obj: Any) -> int | None:
        return self._ids.get(id(obj))


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, shared: _Shared, package: str) -> None:
        super().__init__(file)
        # A C function rather than a method: a state refers to the game's tables hundreds of times.
        # A reference out of range raises IndexError, which `load` turns into a `SnapshotError`.
        self.persistent_load = shared.objects.__getitem__  # type: ignore[method-assign]
        self._package = package

    def find_class(self, module: str, name: str) -> Any:
        allowed = ((module, name) in _BUILTINS or module == "ludothek.engine.core"
                   or module == self._package or module.startswith(self._package + "."))
        if not allowed:
            raise SnapshotError(f"the snapshot names {module}.{name}, which no state of this game holds")
        return super().find_class(module, name)


def _history_parts(history: list[HistoryEntry]) -> tuple[list[tuple[int, str, tuple[int, ...] | None]], bytes]:
    """The distinct entries of ``history`` and one index per entry (4 bytes each, native order)."""
    index: dict[HistoryEntry, int] = {}
    distinct: list[tuple[int, str, tuple[int, ...] | None]] = []
    order = array("I")
    for entry in history:
        at = index.get(entry)
        if at is None:
            at = index[entry] = len(distinct)
            visible = entry.visible_to
            distinct.append((entry.seat, entry.action, None if visible is None else tuple(sorted(visible))))
        order.append(at)
    if sys.byteorder != "little":
        order.byteswap()
    return distinct, order.tobytes()


_new = object.__new__
_slots: dict[str, Any] = dict(vars(HistoryEntry))
_set_seat = _slots["seat"].__set__
_set_action = _slots["action"].__set__
_set_visible = _slots["visible_to"].__set__


def _entry(seat: int, action: str, visible: frozenset[int] | None) -> HistoryEntry:
    """``HistoryEntry(seat, action, visible)``, three times as fast (the slots set directly, unchecked)."""
    if not isinstance(seat, int) or not isinstance(action, str):
        raise SnapshotError("the snapshot's history is damaged")
    entry: HistoryEntry = _new(HistoryEntry)
    _set_seat(entry, seat)
    _set_action(entry, action)
    _set_visible(entry, visible)
    return entry


def _pick(entries: list[HistoryEntry], indices: array[int]) -> list[HistoryEntry]:
    """``[entries[i] for i in indices]`` in C (`operator.itemgetter`)."""
    if len(indices) < 2:
        return [entries[i] for i in indices]
    return list(itemgetter(*indices)(entries))


def dump(state: State) -> bytes:
    """``state`` as a snapshot (see the module docstring); `load` gives back an equal, independent state."""
    game = state.game
    history = state._history
    memo = state._undo_memo()  # brought up to date, so it is written complete
    attrs = {key: value for key, value in state.__dict__.items() if key not in _SPECIAL}
    distinct, order = _history_parts(history)
    body_io = io.BytesIO()
    shared = _shared_for(game, state.num_players, state.options)
    _Pickler(body_io, shared).dump((type(state), attrs, distinct, order, memo[2], memo[3], memo[4]))
    body = body_io.getvalue()
    compression = "zlib" if len(body) >= COMPRESS_FROM else "none"
    if compression == "zlib":
        body = zlib.compress(body, 1)
    header = json.dumps({
        "game": game.id, "rules_version": game.rules_version, "players": state.num_players,
        "options": dict(state.options), "seq": len(history), "code": fingerprint(game),
        "compression": compression,
    }, separators=(",", ":"), sort_keys=True).encode()
    return _HEAD.pack(MAGIC, FORMAT_VERSION, len(header)) + header + body


def header(data: bytes) -> dict[str, Any]:
    """The header of a snapshot (what it claims to be); `SnapshotError` when it is not one of this format."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise SnapshotError("a snapshot is bytes")
    data = bytes(data)
    if len(data) < _HEAD.size:
        raise SnapshotError("the snapshot is cut short")
    magic, version, length = _HEAD.unpack_from(data)
    if magic != MAGIC:
        raise SnapshotError("this is not a Ludothek snapshot")
    if version != FORMAT_VERSION:
        raise SnapshotError(f"the snapshot has format version {version}, this server reads {FORMAT_VERSION}")
    try:
        meta = json.loads(data[_HEAD.size:_HEAD.size + length])
    except ValueError as exc:
        raise SnapshotError(f"the snapshot's header is damaged: {exc}") from None
    if not isinstance(meta, dict):
        raise SnapshotError("the snapshot's header is damaged")
    return meta


def load(data: bytes, game_id: str | None = None, players: int | None = None,
         options: Mapping[str, str] | None = None, seq: int | None = None) -> State:
    """The state a snapshot holds; `SnapshotError` for anything this server cannot trust.

    ``game_id``, ``players``, ``options`` and ``seq`` (the number of history entries), when given,
    must be what the snapshot says: a caller names the game it expects, so a snapshot stored for
    another game or another position is refused rather than used.  The rules version and the code
    fingerprint must be this server's.
    """
    meta = header(data)
    try:
        game = load_game(str(meta.get("game")))
    except KeyError:
        raise SnapshotError(f"the snapshot is of a game this server does not have: {meta.get('game')!r}") from None
    if game_id is not None and meta["game"] != game_id:
        raise SnapshotError(f"the snapshot is of {meta['game']!r}, not {game_id!r}")
    if str(meta.get("rules_version")) != game.rules_version:
        raise SnapshotError(f"the snapshot was made with rules version {meta.get('rules_version')}, "
                            f"this server has {game.rules_version}")
    if meta.get("code") != fingerprint(game):
        raise SnapshotError("the snapshot was made by other code of this game")
    n, opts = meta.get("players"), meta.get("options")
    if not isinstance(n, int) or not isinstance(opts, dict):
        raise SnapshotError("the snapshot's header is damaged")
    if players is not None and n != players:
        raise SnapshotError(f"the snapshot is for {n} players, not {players}")
    if options is not None and _options_key(opts) != _options_key(options):
        raise SnapshotError("the snapshot was made with other options")
    if seq is not None and meta.get("seq") != seq:
        raise SnapshotError(f"the snapshot holds {meta.get('seq')} entries, not {seq}")
    _, _, length = _HEAD.unpack_from(data)
    body = bytes(data[_HEAD.size + length:])
    try:
        if meta.get("compression") == "zlib":
            body = zlib.decompress(body)
        elif meta.get("compression") != "none":
            raise SnapshotError(f"the snapshot is compressed as {meta.get('compression')!r}")
        shared = _shared_for(game, n, opts)
        cls, attrs, distinct, order, stack, gaps, after = _Unpickler(
            io.BytesIO(body), shared, _package_of(game)).load()
        if not (isinstance(cls, type) and issubclass(cls, State) and isinstance(attrs, dict)):
            raise SnapshotError("the snapshot does not hold a game state")
        entries = [_entry(seat, action, None if visible is None else frozenset(visible))
                   for seat, action, visible in distinct]
        indices = array("I")
        indices.frombytes(order)
        if sys.byteorder != "little":
            indices.byteswap()
        history = _pick(entries, indices)
    except SnapshotError:
        raise
    except Exception as exc:  # a damaged body can fail in any way pickle, zlib or array may fail
        raise SnapshotError(f"the snapshot's body is damaged: {type(exc).__name__}: {exc}") from None
    if len(history) != meta.get("seq"):
        raise SnapshotError("the snapshot's history does not match its header")
    state: State = cls.__new__(cls)
    state.__dict__.update(attrs)
    state.game = game
    state._history = history
    state._in_force_memo = (history, len(history), tuple(stack), tuple(gaps), tuple(after))
    return state


__all__ = ["FORMAT_VERSION", "MAGIC", "SnapshotError", "dump", "fingerprint", "header", "load"]
