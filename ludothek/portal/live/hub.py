"""Live updates: who is watching which game, and telling them that it moved.

A message says only public facts (the game, its new sequence number, the seat
to move, the status); each page or program then fetches its own view, so an
update can never carry another seat's secrets.

Chat messages travel on the same channel, addressed: a message may name the
users who may hear it (``to``) and those who must not (``skip``, who blocked
the author).  Each watcher is registered with its user, and a process hands
an addressed message only to the watchers it names, without the addresses.
While a game runs, ``to`` is its table, so spectators never hear its chat.

Fan-out is in-process by default.  With a Redis URL, every process publishes
to one Redis channel and each forwards what it hears to its own watchers, so
several servers behind a load balancer all see every move.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import queue
import random
import threading
from collections import defaultdict
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from ludothek.services import Site
from ludothek.storage import GameEvent
from ludothek.storage.botturns import BotTurn

from .. import jsonbody
from .loop_publish import LoopPublisher, supported

log = logging.getLogger(__name__)

CHANNEL = "ludothek:events"
#: At most this many live messages in one Redis pipeline.
PUBLISH_BATCH = 500
#: How long a move's answer waits at most for its live messages to reach Redis (Redis down or slow:
#: the move is stored, the answer goes out anyway, the pages catch up on their next fetch).
FLUSH_TIMEOUT = 2.0
#: Seconds between attempts to reopen the event loop's own connection to Redis.
RECONNECT_DELAY = 1.0
#: Pauses (seconds) before subscribing again after the subscription broke: the first, and the most
#: they double up to (`Settings.live_resubscribe_min` / ``_max``: a restarted Redis is heard again
#: within about this much).
RESUBSCRIBE_MIN = 0.1
RESUBSCRIBE_MAX = 2.0
#: Seconds to wait for a connection to Redis, and for the first subscription when the server starts.
CONNECT_TIMEOUT = 2.0
START_WAIT = 5.0


def _keepalive_options() -> dict[int, int]:
    """Probe an idle subscription after 10 s, every 5 s, and give up after 3 unanswered probes (Linux;
    elsewhere the system's defaults): a vanished Redis is noticed within about 25 s."""
    import socket

    names = {"TCP_KEEPIDLE": 10, "TCP_KEEPINTVL": 5, "TCP_KEEPCNT": 3}
    return {getattr(socket, name): value for name, value in names.items() if hasattr(socket, name)}


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def event_message(event: GameEvent) -> dict[str, Any]:
    message = {
        "type": "update",
        "game": event.game_id,
        "seq": event.seq,
        "to_move": event.to_move if event.to_move >= 0 else None,
        "status": event.status,
    }
    if event.seats_rev is not None:  # seats or votes changed without a move: pages refresh on a new value
        message["seats_rev"] = event.seats_rev
    return message


def thinking_message(game_id: int, seq: int, seat: int | None, until: datetime | None,
                     now: datetime | None = None) -> dict[str, Any]:
    """A bot started thinking at move ``seq`` (``seat``, for at most ``seconds``), or stopped (``seat`` null).

    Public facts only, like an update; the page marks the bot's panel without fetching its view.
    ``seconds`` is relative, so clocks that disagree between server and browser do not matter.
    """
    left = 0.0 if until is None or seat is None else max(0.0, (until - (now or datetime.now(UTC))).total_seconds())
    return {"type": "thinking", "game": game_id, "seq": seq, "seat": seat if left > 0 else None,
            "seconds": round(left, 1)}


class Hub:
    """Watchers per game; `publish` may be called from any thread."""

    def __init__(self) -> None:
        #: Per game: each watcher's queue and the user behind it (None: nobody logged in).
        self._watchers: dict[int, dict[asyncio.Queue[dict[str, Any]], int | None]] = defaultdict(dict)
        self._user_watchers: dict[int, set[asyncio.Queue[dict[str, Any]]]] = defaultdict(set)
        self._lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None

    def watch(self, game_id: int, user_id: int | None = None) -> asyncio.Queue[dict[str, Any]]:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=256)
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
        with self._lock:
            self._watchers[game_id][queue] = user_id
        return queue

    def unwatch(self, game_id: int, queue: asyncio.Queue[dict[str, Any]]) -> None:
        with self._lock:
            watchers = self._watchers.get(game_id)
            if watchers is not None:
                watchers.pop(queue, None)
                if not watchers:
                    del self._watchers[game_id]

    def watched(self) -> tuple[list[int], list[int]]:
        """The games and the users this process has live sockets for."""
        with self._lock:
            return list(self._watchers), list(self._user_watchers)

    def watcher_count(self) -> int:
        with self._lock:
            return sum(len(w) for w in self._watchers.values())

    def _deliver(self, game_id: int, message: dict[str, Any]) -> None:
        with self._lock:
            watchers = list(self._watchers.get(game_id, {}).items())
        if "to" in message or "skip" in message:
            to = message.pop("to", None)
            allowed = None if to is None else set(to)
            skip = set(message.pop("skip", None) or ())
            queues = [q for q, user in watchers
                      if (allowed is None or user in allowed) and (user is None or user not in skip)]
        else:
            queues = [q for q, _ in watchers]
        for q in queues:
            if q.full():  # a stuck watcher only needs the newest news
                with contextlib.suppress(asyncio.QueueEmpty):
                    q.get_nowait()
            q.put_nowait(message)

    def deliver(self, game_id: int, message: dict[str, Any]) -> None:
        """Hand a message to this process's watchers (thread-safe)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._deliver(game_id, message)
        else:
            loop.call_soon_threadsafe(self._deliver, game_id, message)

    def publish(self, event: GameEvent) -> None:
        """Store listener: tell watchers of this game."""
        self.deliver(event.game_id, event_message(event))

    async def flushed(self, timeout: float = FLUSH_TIMEOUT) -> None:
        """Return once every message published so far has left this process (here: at once)."""
        return None

    def wait_flushed(self, timeout: float = FLUSH_TIMEOUT) -> bool:
        """`flushed` for a worker thread (a synchronous request handler)."""
        return True

    def publish_to(self, game_id: int, message: dict[str, Any], to: list[int] | None, skip: list[int]) -> None:
        """Tell the watchers of this game who are users in ``to`` (None: all) and not in ``skip``."""
        self.deliver(game_id, {**message, "game": game_id, "to": to, "skip": skip})

    def publish_thinking(self, turn: BotTurn) -> None:
        """`BotTurns` listener: a bot worker claimed a turn (or gave it back); tell every watcher of the game."""
        self.publish_to(turn.game_id, thinking_message(turn.game_id, turn.seq, turn.seat, turn.until), None, [])

    # A user's own channel: "a game became your turn", for the tab title, lists and browser notifications.
    def watch_user(self, user_id: int) -> asyncio.Queue[dict[str, Any]]:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=64)
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
        with self._lock:
            self._user_watchers[user_id].add(queue)
        return queue

    def unwatch_user(self, user_id: int, queue: asyncio.Queue[dict[str, Any]]) -> None:
        with self._lock:
            watchers = self._user_watchers.get(user_id)
            if watchers is not None:
                watchers.discard(queue)
                if not watchers:
                    del self._user_watchers[user_id]

    def _deliver_user(self, user_id: int, message: dict[str, Any]) -> None:
        with self._lock:
            queues = list(self._user_watchers.get(user_id, ()))
        for q in queues:
            if q.full():
                with contextlib.suppress(asyncio.QueueEmpty):
                    q.get_nowait()
            q.put_nowait(message)

    def publish_user(self, user_id: int, message: dict[str, Any]) -> None:
        """Tell every tab of ``user_id`` (thread-safe; only ids and sequence numbers, no game content)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        with self._lock:
            if user_id not in self._user_watchers:
                return
        loop.call_soon_threadsafe(self._deliver_user, user_id, message)

    def trouble(self) -> str | None:
        """Why this process's sockets may miss other processes' messages now (None: they do not)."""
        return None

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()

    async def stop(self) -> None:
        return None


class RedisHub(Hub):
    """Fan-out across processes through Redis pub/sub.

    Publishing never waits for Redis.  Whatever has queued up goes out as one Redis message (a JSON
    array when there are several: one message for each subscribed process to read).  In a server
    process (`start` called on its event loop) the loop writes it itself on a connection Redis does
    not answer (`ludothek.portal.loop_publish`): a move costs no thread hand-over and no reply.
    Elsewhere (bot workers), or while that connection is down, one publisher thread sends the
    messages and waits for Redis's replies.  A move's request would otherwise wait for one or two
    round trips after its commit, on SQLite on the event loop itself, stopping every other request
    meanwhile.  Messages of this process keep their order.
    """

    def __init__(self, url: str, deployment: str = "", reconnect_min: float = RESUBSCRIBE_MIN,
                 reconnect_max: float = RESUBSCRIBE_MAX) -> None:
        super().__init__()
        import redis
        import redis.asyncio as aioredis

        self.url = url
        self.reconnect_min = reconnect_min
        self.reconnect_max = reconnect_max
        #: Subscribed to the channel right now (`trouble` and /readyz say so when not).
        self.listening = False
        #: Called (on the loop) after a subscription that followed a lost one: what was published
        #: meanwhile never arrives, so the portal looks in the database for what moved (`DatabaseWatch`).
        self.on_resubscribed: Callable[[], Awaitable[None]] | None = None
        #: One channel per deployment, so that two portals sharing a Redis do not hear each other.
        self.channel = f"{CHANNEL}:{hashlib.sha256(deployment.encode()).hexdigest()[:16]}"
        self._pub = redis.Redis.from_url(url)
        # The subscription only reads: TCP keep-alives notice a Redis that vanished without closing it.
        self._sub = aioredis.Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT, socket_keepalive=True,
                                            socket_keepalive_options=_keepalive_options())
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._outgoing: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._publisher: threading.Thread | None = None
        self._publisher_lock = threading.Lock()
        #: Messages queued and messages sent (or given up on) so far: a move's answer waits until
        #: its own messages are out, so an acknowledged move's update reaches the other processes
        #: even if this one is killed right after answering.
        self._queued = 0
        self._sent = 0
        self._sent_cond = threading.Condition()
        self._waiters: list[tuple[int, asyncio.Future[None], asyncio.AbstractEventLoop]] = []
        #: The server's event loop and its connection, once `start` ran; messages waiting for the loop.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread = 0
        self._loop_pub: LoopPublisher | None = None
        self._reconnecting: asyncio.Task[None] | None = None
        self._pending: list[str] = []
        self._pending_lock = threading.Lock()
        self._drain_scheduled = False
        #: Messages handed to the publisher thread and not yet sent by it (the loop waits for them
        #: before it publishes again, so that the process's messages keep their order).
        self._thread_unsent = 0
        #: The publisher thread's last try failed (an outage is logged once, not once per message).
        self._publish_failing = False

    def _send(self, data: str) -> None:
        """Queue one message: for the event loop's connection in a server, else for the publisher thread."""
        with self._sent_cond:
            self._queued += 1
        loop = self._loop
        if loop is None:
            self._to_thread([data])
            return
        with self._pending_lock:
            self._pending.append(data)
            if self._drain_scheduled:
                return
            self._drain_scheduled = True
        if threading.get_ident() == self._loop_thread:
            loop.call_soon(self._drain)
            return
        try:
            loop.call_soon_threadsafe(self._drain)
        except RuntimeError:  # the loop has closed: the thread sends it
            self._drain(on_loop=False)

    def _drain(self, on_loop: bool = True) -> None:
        """Publish everything pending as one message: on the loop's connection, or through the thread."""
        with self._pending_lock:
            batch, self._pending = self._pending, []
            self._drain_scheduled = False
        if not batch:
            return
        pub = self._loop_pub if on_loop else None
        with self._sent_cond:
            thread_busy = self._thread_unsent > 0
        if pub is not None and not thread_busy:
            for start in range(0, len(batch), PUBLISH_BATCH):
                part = batch[start:start + PUBLISH_BATCH]
                if not pub.publish(self.channel, part[0] if len(part) == 1 else "[" + ",".join(part) + "]"):
                    self._to_thread(batch[start:])
                    self._reconnect_later()
                    return
                self._mark_sent(len(part))
            return
        self._to_thread(batch)
        if on_loop and pub is None:
            self._reconnect_later()

    def _reconnect_later(self) -> None:
        """Try the loop's own connection again in a while (on the loop)."""
        if (self._loop is None or not supported(self.url)
                or (self._reconnecting is not None and not self._reconnecting.done())):
            return
        self._loop_pub = None
        self._reconnecting = self._loop.create_task(self._reconnect())

    async def _reconnect(self, delay: float = RECONNECT_DELAY) -> None:
        await asyncio.sleep(delay)
        pub = LoopPublisher(self.url)
        try:
            await pub.connect()
        except Exception as exc:  # Redis still away: the thread carries on, and we try again later
            log.info("live messages: Redis connection for the event loop not available (%s)", exc)
            self._reconnecting = None
            self._reconnect_later()
            return
        self._loop_pub = pub

    def _to_thread(self, messages: list[str]) -> None:
        """Hand messages to the publisher thread (started on first use: bot workers publish too)."""
        if self._publisher is None:
            with self._publisher_lock:
                if self._publisher is None:
                    thread = threading.Thread(target=self._publish_loop, name="ludothek-redis-publish", daemon=True)
                    thread.start()
                    self._publisher = thread
        with self._sent_cond:
            self._thread_unsent += len(messages)
        for data in messages:
            self._outgoing.put(data)

    def _mark_sent(self, count: int) -> None:
        with self._sent_cond:
            self._sent += count
            self._sent_cond.notify_all()
            ready = [w for w in self._waiters if w[0] <= self._sent]
            self._waiters = [w for w in self._waiters if w[0] > self._sent]
        for _, future, loop in ready:
            with contextlib.suppress(RuntimeError):  # a loop closed meanwhile
                loop.call_soon_threadsafe(_resolve, future)

    async def flushed(self, timeout: float = FLUSH_TIMEOUT) -> None:
        """Return once every message queued so far is sent (without blocking the event loop)."""
        if self._loop is not None and threading.get_ident() == self._loop_thread:
            self._drain()
            pub = self._loop_pub
            if pub is not None and not await pub.written(timeout):
                log.warning("live messages not written to Redis within %.1f s; answering anyway", timeout)
        with self._sent_cond:
            target = self._queued
            if self._sent >= target:
                return
            loop = asyncio.get_running_loop()
            future: asyncio.Future[None] = loop.create_future()
            self._waiters.append((target, future, loop))
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            log.warning("live messages not sent to Redis within %.1f s; answering anyway", timeout)

    def wait_flushed(self, timeout: float = FLUSH_TIMEOUT) -> bool:
        """`flushed` for a thread that may block (never the event loop's own)."""
        loop = self._loop
        if loop is not None:
            if threading.get_ident() == self._loop_thread:
                self._drain()
            else:
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(self._drain)
        with self._sent_cond:
            target = self._queued
            return self._sent_cond.wait_for(lambda: self._sent >= target, timeout)

    def _publish_loop(self) -> None:
        """Send the queued messages, all that have gathered in one pipeline; ``None`` ends the loop."""
        while True:
            batch = [self._outgoing.get()]
            while len(batch) < PUBLISH_BATCH:
                try:
                    batch.append(self._outgoing.get_nowait())
                except queue.Empty:
                    break
            last = batch[-1] is None
            messages = [m for m in batch if m is not None]
            with self._sent_cond:
                self._thread_unsent -= len(messages)
            if messages:
                try:
                    # All that gathered go out as one Redis message (a JSON array): a move's update and
                    # the turn notice that follows it usually travel together, and every process
                    # subscribed reads and decodes one message instead of one per update.
                    self._pub.publish(self.channel, messages[0] if len(messages) == 1
                                      else "[" + ",".join(messages) + "]")
                except Exception as exc:  # the moves are stored; the pages notice on their next fetch
                    if not self._publish_failing:  # once per outage, not once per move
                        log.warning("could not publish live messages to Redis (%s: %s); they are lost until "
                                    "it is back", type(exc).__name__, exc)
                    self._publish_failing = True
                else:
                    if self._publish_failing:
                        log.warning("live messages reach Redis again")
                    self._publish_failing = False
                self._mark_sent(len(messages))
            if last:
                return

    def close_publisher(self, timeout: float = 5.0) -> None:
        """Send what is queued, stop the publisher thread and close its connection."""
        thread = self._publisher
        if thread is not None:
            self._outgoing.put(None)
            thread.join(timeout)
            self._publisher = None
        with contextlib.suppress(Exception):
            self._pub.close()

    def publish(self, event: GameEvent) -> None:
        self._send(json.dumps(event_message(event)))

    def publish_user(self, user_id: int, message: dict[str, Any]) -> None:
        self._send(json.dumps({**message, "user": user_id}))

    def publish_to(self, game_id: int, message: dict[str, Any], to: list[int] | None, skip: list[int]) -> None:
        self._send(json.dumps({**message, "game": game_id, "to": to, "skip": skip}))

    async def start(self) -> None:
        await super().start()
        self._ready = asyncio.Event()
        self._task = asyncio.create_task(self._listen())
        try:
            await asyncio.wait_for(self._ready.wait(), timeout=START_WAIT)
        except TimeoutError:  # the server serves anyway; /readyz says 503 until the listener is subscribed
            log.warning("live messages: not subscribed to Redis after %.0f s; trying on", START_WAIT)
        self._loop, self._loop_thread = asyncio.get_running_loop(), threading.get_ident()
        if supported(self.url):
            pub = LoopPublisher(self.url)
            try:
                await pub.connect()
            except Exception as exc:
                log.warning("live messages go through the publisher thread: %s", exc)
                self._reconnect_later()
            else:
                self._loop_pub = pub

    def trouble(self) -> str | None:
        if self.listening:
            return None
        return "not subscribed to Redis: messages of other processes do not arrive (reconnecting)"

    async def _listen(self) -> None:
        """Subscribe and hand on what arrives, for as long as the server runs.

        When the subscription breaks (Redis restarted, the connection dropped) it subscribes again
        after a pause that doubles up to ``reconnect_max`` (each one shortened by a random part, so that
        many processes do not all come back in the same instant); after a new subscription
        `on_resubscribed` catches up on what was published meanwhile.
        """
        delay = self.reconnect_min
        lost = False
        while True:
            try:
                await self._subscribed(lost)
                delay = self.reconnect_min  # it was subscribed: the next loss starts from the shortest pause
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not lost:  # once per outage
                    log.warning("live messages: Redis subscription lost (%s: %s); subscribing again",
                                type(exc).__name__, exc)
            lost = True
            self.listening = False
            await asyncio.sleep(delay * random.uniform(0.5, 1.0))
            delay = min(self.reconnect_max, delay * 2)

    async def _subscribed(self, after_loss: bool) -> None:
        """One subscription: subscribe, catch up if it follows a lost one, deliver until it breaks."""
        pubsub = self._sub.pubsub()
        try:
            await pubsub.subscribe(self.channel)
            self.listening = True
            self._ready.set()
            if after_loss:
                log.warning("live messages: subscribed to Redis again")
                if self.on_resubscribed is not None:
                    try:
                        await self.on_resubscribed()
                    except Exception:
                        log.exception("live messages: could not catch up after Redis came back")
            async for item in pubsub.listen():
                if item.get("type") != "message":
                    continue
                self._received(item["data"])
            raise ConnectionError("the subscription ended")
        finally:
            self.listening = False
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    def _received(self, raw: bytes | str) -> None:
        try:
            data = jsonbody.loads(raw)  # every process reads every message: the quick decoder
        except ValueError:
            log.warning("ignoring a malformed live message from Redis")
            return
        for message in data if isinstance(data, list) else (data,):
            try:
                if "user" in message:
                    self._deliver_user(int(message.pop("user")), message)
                else:
                    self._deliver(int(message["game"]), message)
            except (ValueError, KeyError, TypeError, AttributeError):
                log.warning("ignoring a malformed live message from Redis")

    async def stop(self) -> None:
        if self._loop is not None:
            self._drain()
            self._loop = None  # from now on, what is published goes through the thread
            if self._reconnecting is not None:
                self._reconnecting.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self._reconnecting
                self._reconnecting = None
            if self._loop_pub is not None:
                await self._loop_pub.close()
                self._loop_pub = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        with contextlib.suppress(Exception):
            await self._sub.aclose()
        await asyncio.to_thread(self.close_publisher)


def turn_listener(site: Site, hub: Hub) -> Callable[[GameEvent], None]:
    """Store listener: tell the people of a game whose waiting games changed, on their own channel.

    The person to move hears ``turn`` (the tab title, the lists, a browser notification); the person
    whose move (in any tab or device), timeout or resignation passed the turn on hears ``waiting``, and
    so does everyone at the table when the game ends: a wait of theirs ended, and every open tab of
    theirs re-counts (issue 30, item 2).  Ids and sequence numbers only.
    Lives here, beside the hubs, so a bot worker can use it without importing the web application.
    """

    def on_event(event: GameEvent) -> None:
        ended = event.status in ("finished", "abandoned")
        if event.status != "running" and not ended:
            return
        # The mover's wait ended if the turn passed on, or a bot now plays their seat (they left).
        mover_waits = (event.mover is not None and event.mover >= 0
                       and (event.mover != event.to_move or event.bot_to_move))
        if not ended and event.bot_to_move and not mover_waits:
            return
        info = site.games.seats_of(event.game_id)
        if info is None:
            return
        for seat in info.seats:
            if seat.user_id is None or seat.kind not in ("player", "bot"):
                continue
            if not ended and seat.seat == event.to_move and seat.kind == "player":
                hub.publish_user(seat.user_id, {"type": "turn", "game": event.game_id, "seq": event.seq})
            elif ended or (mover_waits and seat.seat == event.mover):
                hub.publish_user(seat.user_id, {"type": "waiting", "game": event.game_id, "seq": event.seq})

    return on_event
