"""`Site`: every service of one process, built once from the engine and held as attributes.

The portal holds it as ``portal.site``; workers, the command line and the tests build their own.
Each service is a small object with an explicit constructor; the facade only builds and wires them,
so a reader (and a type checker) follows ``site.play.submit(...)`` straight to its code:

=================  ==========================================================================
``db``             `Database`: the engine and the dialect's plain SQL (``site.engine`` is its engine)
``games``          `Games`: reading game summaries (``site.games.game(id)``), with the seats cache
``accounts``       `Accounts`: registration, guests, logins, users
``sessions``       `Sessions`: browser sessions, API tokens, passwords
``lobby``          `Lobby`: creating, joining, leaving, cancelling games; the game lists
``play``           `Play`: states, records, moves (`Play.submit`, the one move path) and undo
``clocks``         `Clocks`: deadlines, reminders, resigning, abandon votes, vacations
``history``        `History`: the log page by page, replays, imported records
``chat``           `Chat`: game chats and reports
``ratings``        `Ratings`: leaderboards and rating histories
``profiles``       `Profiles`: profiles and a player's games
``social``         `Social`: friends, blocks, last activity
``outbox``         `Outbox`: the mail queue (the senders' side)
``notify``         `Notify`: addresses, mail settings, password resets, waiting games
``push``           `Push`: the browsers that receive Web Push, the site's VAPID keys
``notices``        `NoticePrefs`: who wants which notice on which channel (issue 30)
``messages``       `Messages`: a notice in the recipient's words
``deliveries``     `Deliveries`: a notice's deliveries, per channel and target
``bots``           `BotTurns`: claiming bot turns and storing their moves through ``play``
``admin``          `Admin`: users, blocking, ending games
``webhooks``       `Webhooks`: players' own webhook endpoints and how their deliveries went
``botaccounts``    `BotAccounts`: bot accounts, their tokens and challenges, the bot leaderboard
``tournaments``    `Tournaments`: tournaments, their entrants, rounds and standings (issue 31)
``opendata``       `OpenData`: the monthly open-data exports and the players' opt-out (issue 32)
``statistics``     `Statistics`: win rates per game, seat, purchase and opening, rebuilt nightly (issue 32)
=================  ==========================================================================

``listeners`` (told of every change of a game), ``states`` (the cache of game states), ``locks``
and ``users`` (who is behind a token, briefly) are shared by the services that need them.
"""

from __future__ import annotations

from argon2 import PasswordHasher
from sqlalchemy import Engine

from ludothek.storage.botturns import BotTurnQueue
from ludothek.storage.database import Database
from ludothek.storage.deliveries import Deliveries
from ludothek.storage.games import Games
from ludothek.storage.moves import move_writer

from .accounts import Accounts
from .admin import Admin
from .botaccounts import BotAccounts
from .bots import BotTurns
from .clocks import Clocks
from .community.chat import Chat
from .community.history import History
from .community.profiles import Profiles
from .community.ratings import Ratings
from .community.social import Social
from .lobby import Lobby
from .notices import Messages, NoticePrefs
from .notify import Notify
from .opendata import OpenData
from .outbox import Outbox
from .play import Play
from .push import Push
from .runtime import GameLocks, Listeners, StateCache, UserCache, UserMessages, state_cache_bytes_from_env
from .sessions import Sessions
from .snapkeeper import SnapshotKeeper, snapshot_every_from_env
from .statistics import Statistics
from .tournaments.service import Tournaments
from .webhooks import Webhooks


class Site:
    """All database access of one process, by concern.  Thread-safe; one instance per process."""

    def __init__(self, engine: Engine, *, cache_bytes: int | None = None, hasher: PasswordHasher | None = None,
                 snapshot_every: int | None = None) -> None:
        self.engine = engine
        self.hasher = hasher or PasswordHasher()
        self.db = Database(engine)
        self.games = Games(self.db)
        self.listeners = Listeners()
        self.states = StateCache(state_cache_bytes_from_env() if cache_bytes is None else cache_bytes)
        self.locks = GameLocks()
        self.users = UserCache()
        self.accounts = Accounts(self.db, self.hasher, self.users)
        self.sessions = Sessions(self.db, self.hasher, self.accounts, self.users)
        self.lobby = Lobby(self.db, self.games, self.states, self.locks, self.listeners, self.accounts)
        self.play = Play(self.db, self.games, self.states, self.locks, self.listeners, move_writer(self.db))
        self.clocks = Clocks(self.db, self.games, self.states, self.locks, self.listeners)
        self.chat = Chat(self.db, self.games)
        self.history = History(self.db, self.games, self.play, self.chat)
        self.ratings = Ratings(self.db)
        self.profiles = Profiles(self.db, self.games)
        self.social = Social(self.db, self.accounts, self.lobby)
        self.outbox = Outbox(self.db)
        self.notify = Notify(self.db, self.hasher, self.sessions, self.users)
        self.push = Push(self.db)
        #: Issue 30: who wants which notice on which channel, a notice in words, and its deliveries.
        self.notices = NoticePrefs(self.db, self.notify)
        self.messages = Messages(self)
        self.deliveries = Deliveries(self.db)
        #: Told ``(user id, message)`` for the user's open tabs (the portal's live hub; the tab channel).
        self.user_messages = UserMessages()
        self.bots = BotTurns(BotTurnQueue(self.db), self.games, self.play)
        self.admin = Admin(self.db, self.games, self.states, self.locks, self.listeners, self.sessions, self.users)
        self.webhooks = Webhooks(self.db)
        #: Issue 33: bot accounts (programs run by a person), their challenges and the bot leaderboard.
        self.botaccounts = BotAccounts(self.db, self.accounts, self.sessions, self.lobby)
        #: Issue 34: cold games restored from snapshots; a snapshot written every N entries after the commit.
        self.snapshots = SnapshotKeeper(self.db, self.states, self.locks,
                                        snapshot_every_from_env() if snapshot_every is None else snapshot_every)
        self.play.snapshots = self.snapshots
        self.listeners.append(self.snapshots.on_event)
        #: Issue 31: tournaments (their rounds are started by `ludothek.workers.tournaments`).
        self.tournaments = Tournaments(self.db, self.games, self.states, self.locks, self.listeners)
        #: Issue 32: the monthly open-data exports (written by `ludothek.workers.exports`) and the opt-out.
        self.opendata = OpenData(self.db)
        #: Issue 32: the statistics per game, rebuilt nightly by `ludothek.workers.statistics`.
        self.statistics = Statistics(self.db)
