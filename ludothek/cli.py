"""The ``ludothek`` command: play in the terminal, simulate bot games, replay records, serve the portal.

The command line knows no game's rules: it shows a seat's view (through the
game's ``text.render`` when it has one) and offers exactly the engine's legal
actions, as the portal does.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import random
import secrets
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from ludothek import engine
from ludothek.bots import BOTS, Bot, make_bot, play_to_end
from ludothek.engine import CHANCE, State

TEXTS = {
    "your_turn": {"de": "Du bist am Zug. Wähle eine Aktion:", "en": "Your turn. Choose an action:"},
    "prompt": {"de": "Nummer oder Aktion (q = beenden): ", "en": "Number or action (q = quit): "},
    "bad_choice": {"de": "Das geht nicht: ", "en": "Not possible: "},
    "game_over": {"de": "Spielende.", "en": "Game over."},
    "rank": {"de": "Platz", "en": "Rank"},
    "score": {"de": "Punkte", "en": "Score"},
    "you": {"de": "du", "en": "you"},
    "seat": {"de": "Platz", "en": "Seat"},
    "bot": {"de": "Bot", "en": "bot"},
    "saved": {"de": "Partie gespeichert in", "en": "Game record saved to"},
    "undone": {"de": "zurückgenommen", "en": "taken back"},
}


def _t(key: str, lang: str) -> str:
    return TEXTS[key][lang]


def parse_options(items: Sequence[str]) -> dict[str, str]:
    """``["ending=kosmos", "market=all"]`` -> dict; a clear error for anything else."""
    options: dict[str, str] = {}
    for item in items:
        for part in item.split(","):
            if not part:
                continue
            name, sep, value = part.partition("=")
            if not sep or not name or not value:
                raise SystemExit(f"ludothek: options are name=value, not {part!r}")
            options[name.strip()] = value.strip()
    return options


def _new_state(game_id: str, players: int, option_items: Sequence[str]) -> State:
    try:
        game = engine.load(game_id)
    except KeyError as exc:
        raise SystemExit(f"ludothek: {exc.args[0]}") from None
    try:
        return game.new_state(players, parse_options(option_items))
    except engine.InvalidOptions as exc:
        raise SystemExit(f"ludothek: {exc}") from None


def renderer(game_id: str) -> Callable[[State, int | None, str], str]:
    """The game's terminal renderer, or a plain JSON dump of the view."""
    try:
        module = importlib.import_module(f"ludothek.games.{game_id}.text")
        render: Callable[[State, int | None, str], str] = module.render
        return render
    except (ImportError, AttributeError):
        return lambda state, seat, lang: json.dumps(state.view(seat), indent=1, ensure_ascii=False)


def play(
    game_id: str,
    players: int,
    option_items: Sequence[str],
    lang: str,
    seat: int,
    bot_name: str,
    seed: int | None,
    save: str | None,
    stdin: TextIO | None = None,
    out: TextIO | None = None,
) -> int:
    """An interactive game in the terminal: one human seat, bots in the others."""
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    state = _new_state(game_id, players, option_items)
    if not 0 <= seat < players:
        raise SystemExit(f"ludothek: --seat must be between 1 and {players}")
    rng = random.Random(seed)
    bot = make_bot(bot_name)
    render = renderer(game_id)
    shown = 0

    def show_log() -> None:
        nonlocal shown
        lines = engine.log(state, viewer=seat, lang=lang)
        for line in lines[shown:]:
            who = line["seat"]
            if who == "chance":
                label = "  *"
            else:
                label = f"  [{_t('you', lang) if who == seat else _t('seat', lang) + ' ' + str(who + 1)}]"
            print(f"{label} {line['text']}", file=out)
        shown = len(lines)

    while not state.is_terminal():
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(engine.sample_chance(state, rng))
            continue
        if player != seat:
            state.apply_action(bot.choose(state, rng))
            continue
        show_log()
        print("", file=out)
        print(render(state, seat, lang), file=out)
        actions = state.legal_actions()
        print("\n" + _t("your_turn", lang), file=out)
        for i, action in enumerate(actions, 1):
            print(f"  {i:>3}. {state.describe(action, lang)}  [{action}]", file=out)
        while True:
            print(_t("prompt", lang), end="", file=out, flush=True)
            answer = stdin.readline()
            if not answer or answer.strip().lower() in ("q", "quit", "exit"):
                _save(state, save, lang, out)
                return 0
            answer = answer.strip()
            choice = actions[int(answer) - 1] if answer.isdigit() and 1 <= int(answer) <= len(actions) else answer
            try:
                state.apply_action(choice, seat=seat)
                break
            except engine.IllegalAction as exc:
                print(_t("bad_choice", lang) + str(exc), file=out)
    show_log()
    print("\n" + render(state, seat, lang), file=out)
    print("\n" + _t("game_over", lang), file=out)
    for r in sorted(state.result(), key=lambda r: r.rank):
        who = _t("you", lang) if r.seat == seat else f"{_t('bot', lang)} {r.seat + 1}"
        print(f"  {_t('rank', lang)} {r.rank}: {who} ({_t('score', lang)} {r.score})", file=out)
    _save(state, save, lang, out)
    return 0


def _save(state: State, path: str | None, lang: str, out: TextIO) -> None:
    if path:
        Path(path).write_text(json.dumps(engine.record(state), indent=1))
        print(f"{_t('saved', lang)} {path}", file=out)


def simulate(
    game_id: str,
    games: int,
    players: int,
    option_items: Sequence[str],
    seed: int,
    bot_name: str,
    progress: bool,
    out: TextIO | None = None,
) -> dict[str, Any]:
    """Bots play each other; print length, wins by seat and speed.

    Speed is games per second of this process's CPU time: on a shared machine the wall clock
    moves with everyone else's load, the CPU time with the code. The wall clock is reported too.
    """
    out = out or sys.stdout
    from tqdm import tqdm

    if games < 1:
        raise SystemExit("ludothek: --games must be at least 1")
    template = _new_state(game_id, players, option_items)
    rng = random.Random(seed)
    bots = [make_bot(bot_name) for _ in range(players)]
    wins = [0.0] * players
    turns: list[int] = []
    actions: list[int] = []
    start, cpu_start = time.perf_counter(), time.process_time()
    for _ in tqdm(range(games), disable=not progress, unit="game", file=sys.stderr):
        state = template.clone()
        play_to_end(state, bots, rng)
        for s, share in enumerate(state.returns()):
            wins[s] += share
        hist = state.history()
        actions.append(len(hist))
        turns.append(state.turns_taken())
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    stats = {
        "game": game_id,
        "games": games,
        "players": players,
        "options": dict(template.options),
        "average_turns": sum(turns) / games,
        "average_actions": sum(actions) / games,
        "wins_by_seat": wins,
        "games_per_second": games / cpu if cpu > 0 else float("inf"),
        "cpu_seconds": cpu,
        "seconds": elapsed,
    }
    print(f"{games} games of {game_id}, {players} players, options {stats['options']}", file=out)
    print(f"  average length: {stats['average_turns']:.1f} turns ({stats['average_actions']:.1f} actions)", file=out)
    for s, w in enumerate(wins):
        print(f"  seat {s + 1}: {w:g} wins ({100 * w / games:.1f} %)", file=out)
    print(
        f"  {stats['games_per_second']:.1f} games per second of CPU time ({cpu:.2f} s CPU, {elapsed:.2f} s wall clock)",
        file=out,
    )
    return stats


def replay_file(path: str, lang: str, viewer: int | None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise SystemExit(f"ludothek: cannot read {path}: {exc.strerror}") from None
    try:
        state = engine.replay(text)
        # Records exported by the portal carry the players' names: the log speaks of them by name.
        meta = json.loads(text).get("meta") or {}
        names = meta.get("players") if isinstance(meta, dict) else None
        names = [str(n) for n in names] if isinstance(names, list) and len(names) == state.num_players else None
        lines = engine.log(text, viewer="all" if viewer is None else viewer, lang=lang, names=names)
    except engine.ReplayError as exc:
        print(f"ludothek: {path}: {exc}", file=sys.stderr)
        return 1
    for line in lines:
        who = "*" if line["seat"] == "chance" else f"{line['seat'] + 1}"
        undone = " (" + _t("undone", lang) + ")" if line.get("undone") else ""
        print(f"{line['n']:>5} [{who}] {line['text']}{undone}", file=out)
    if state.is_terminal():
        print(_t("game_over", lang), file=out)
        for r in sorted(state.result(), key=lambda r: r.rank):
            who = names[r.seat] if names else f"{_t('seat', lang)} {r.seat + 1}"
            print(f"  {_t('rank', lang)} {r.rank}: {who} ({_t('score', lang)} {r.score})", file=out)
    return 0


def serve(db: str | None, host: str, port: int, redis: str | None, workers: int = 1,
          bot_workers: int | None = None) -> int:
    """Run the portal; without ``--db`` the portal's settings choose ($LUDOTHEK_DB or ./var/ SQLite).

    It starts ``bot_workers`` bot worker processes (default ``$LUDOTHEK_BOT_WORKERS``, else 2) and stops
    them when it stops.
    """
    portal = importlib.import_module("ludothek.portal")
    if db and db.startswith("sqlite:///") and not db.startswith("sqlite:////"):
        Path(db.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    kwargs: dict[str, Any] = {"redis_url": redis} if redis else {}
    if bot_workers is not None:
        if bot_workers < 0:
            raise SystemExit("ludothek: --bot-workers must be 0 or more")
        kwargs["bot_workers"] = bot_workers
    portal.serve(db, host, port, workers=workers, **kwargs)
    return 0


def build_parser() -> argparse.ArgumentParser:
    ids = ", ".join(engine.games())
    parser = argparse.ArgumentParser(
        prog="ludothek",
        description="Ludothek: board games turn by turn. Play in the terminal, let bots play, "
        "replay records, or serve the web portal.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def game_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("game", help=f"game id ({ids})")
        p.add_argument("--players", "-p", type=int, default=2, help="number of players (default 2)")
        p.add_argument("--options", "-o", action="append", default=[], metavar="NAME=VALUE",
                       help="a game option, e.g. ending=kosmos; repeat or separate by commas")
        p.add_argument("--bot", default="random", choices=sorted(BOTS), help="bot for the other seats")

    p_play = sub.add_parser("play", help="play a game in the terminal against bots")
    game_args(p_play)
    p_play.add_argument("--lang", choices=engine.LANGS, default="de", help="language (de or en)")
    p_play.add_argument("--seat", type=int, default=1, help="your seat, 1 = first (default 1)")
    p_play.add_argument("--seed", type=int, default=None, help="random seed for dice and bots")
    p_play.add_argument("--save", metavar="FILE", help="write the game record to FILE at the end")

    p_sim = sub.add_parser("simulate", help="let bots play each other and print statistics")
    game_args(p_sim)
    p_sim.add_argument("--games", "-n", type=int, default=100, help="number of games (default 100)")
    p_sim.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p_sim.add_argument("--json", action="store_true", help="also print the statistics as JSON")
    p_sim.add_argument("--no-progress", action="store_true", help="no progress bar")

    p_arena = sub.add_parser("arena", help="let named bots play each other and compare them")
    p_arena.add_argument("game", help=f"game id ({ids})")
    p_arena.add_argument("--bots", required=True, help=f"comma-separated bots, e.g. hard,medium ({', '.join(sorted(BOTS))})")
    p_arena.add_argument("--players", "-p", type=int, default=2, help="number of players (default 2)")
    p_arena.add_argument("--games", "-n", type=int, default=100, help="number of games (default 100)")
    p_arena.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p_arena.add_argument("--options", "-o", action="append", default=[], metavar="NAME=VALUE",
                         help="a game option, e.g. ending=kosmos; repeat or separate by commas")
    p_arena.add_argument("--json", action="store_true", help="print the figures as JSON")
    p_arena.add_argument("--seconds", type=float, default=None, help="hard's time budget per decision (default 2)")
    p_arena.add_argument("--iterations", type=int, default=None, help="hard's iteration budget (default: the game's own, see docs/bots.md)")
    p_arena.add_argument("--no-progress", action="store_true", help="no progress bar")

    p_rep = sub.add_parser("replay", help="replay a game record and print its log")
    p_rep.add_argument("file", help="a JSON game record")
    p_rep.add_argument("--lang", choices=engine.LANGS, default="de")
    p_rep.add_argument("--seat", type=int, default=None, help="show the log as this seat sees it (1 = first)")

    p_srv = sub.add_parser("serve", help="run the web portal")
    p_srv.add_argument("--db", default=None,
                       help="database URL (default: $LUDOTHEK_DB, else sqlite:///var/ludothek.sqlite3)")
    p_srv.add_argument("--host", default="127.0.0.1")
    p_srv.add_argument("--port", type=int, default=8000)
    p_srv.add_argument("--redis", default=None, help="Redis URL for live updates across processes")
    p_srv.add_argument("--workers", type=int, default=1,
                       help="server processes on this port (default 1; more need --redis or $LUDOTHEK_REDIS)")
    p_srv.add_argument("--bot-workers", type=int, default=None,
                       help="bot worker processes started with the server (default $LUDOTHEK_BOT_WORKERS, else 2; "
                            "0: none, run 'ludothek bots' yourself)")

    sub.add_parser("games", help="list the games and their options")

    p_bots = sub.add_parser("bots", help="play the bots' turns in this process (several may run at once)")
    p_bots.add_argument("--db", default=None,
                        help="database URL (default: $LUDOTHEK_DB, else sqlite:///var/ludothek.sqlite3)")
    p_bots.add_argument("--redis", default=None, help="Redis URL: the bots' moves reach the live sockets through it")
    p_bots.add_argument("--delay", type=float, default=None,
                        help="seconds a bot waits after its turn begins, so people can follow (default "
                             "$LUDOTHEK_BOT_DELAY, else 0.4)")
    p_bots.add_argument("--nice", type=int, default=10, help="lower CPU priority by this much (default 10)")
    p_bots.add_argument("--parent", type=int, default=None, help=argparse.SUPPRESS)

    p_wrk = sub.add_parser("worker", help="run the background jobs (clocks, mail) alone")
    p_wrk.add_argument("--db", default=None,
                       help="database URL (default: $LUDOTHEK_DB, else sqlite:///var/ludothek.sqlite3)")
    p_wrk.add_argument("--interval", type=float, default=1.0, help="seconds between two passes (default 1)")

    db_help = "database URL (default: $LUDOTHEK_DB, else sqlite:///var/ludothek.sqlite3)"
    p_bak = sub.add_parser("backup", help="copy the database to FILE while the portal runs (SQLite backup API; "
                                          "pg_dump for PostgreSQL)")
    p_bak.add_argument("file", help="where the copy goes")
    p_bak.add_argument("--db", default=None, help=db_help)
    p_res = sub.add_parser("restore", help="replace the database by the copy in FILE (stop the servers first)")
    p_res.add_argument("file", help="a copy made by 'ludothek backup'")
    p_res.add_argument("--db", default=None, help=db_help)
    p_rat = sub.add_parser("ratings", help="ratings: recompute every rating from the stored results")
    p_rat.add_argument("--recompute", action="store_true",
                       help="replay every finished game's result, in the order they were rated, into fresh ratings "
                            "(and rebuild the profiles' games played and won)")
    p_rat.add_argument("--db", default=None,
                       help="database URL (default: $LUDOTHEK_DB, else sqlite:///var/ludothek.sqlite3)")

    p_adm = sub.add_parser("admin", help="operator commands")
    adm = p_adm.add_subparsers(dest="admin_command", required=True, metavar="ADMIN_COMMAND")
    p_chk = adm.add_parser("check-lobby", help="find started games with an empty seat, or cancelled after starting")
    p_chk.add_argument("--db", default=None,
                       help="database URL (default: $LUDOTHEK_DB, else sqlite:///var/ludothek.sqlite3)")
    p_chk.add_argument("--repair", action="store_true", help="mend what is found (seat a bot; undo the cancel)")
    p_users = adm.add_parser("users", help="list users (id, name, games, admin, blocked)")
    p_users.add_argument("--search", default="", help="only names containing this")
    p_users.add_argument("--blocked", action="store_true", help="only blocked users")
    p_users.add_argument("--limit", type=int, default=100, help="at most this many (default 100)")
    p_block = adm.add_parser("block", help="block a user: no more logins; every session and token ends now")
    p_unblock = adm.add_parser("unblock", help="let a blocked user log in again")
    p_make = adm.add_parser("make-admin", help="let a user open the admin page (/admin)")
    for p in (p_block, p_unblock, p_make):
        p.add_argument("user", help="user name (or #id)")
    p_make.add_argument("--revoke", action="store_true", help="take the role away instead")
    p_cancel = adm.add_parser("cancel-game", help="cancel a game: waiting -> cancelled, running -> abandoned")
    p_cancel.add_argument("game", type=int, help="the game's id")
    for p in (p_users, p_block, p_unblock, p_make, p_cancel):
        p.add_argument("--db", default=None, help=db_help)
    p_rpt = adm.add_parser("reports", help="the reported chat messages, oldest first (ludothek.admin_reports)")
    p_rpt.add_argument("--db", default=None,
                       help="database URL (default: $LUDOTHEK_DB, else sqlite:///var/ludothek.sqlite3)")
    p_rpt.add_argument("--all", action="store_true", help="resolved reports too")
    p_rpt.add_argument("--json", action="store_true", help="one JSON object per line")
    p_rpt.add_argument("--resolve", type=int, metavar="ID", help="mark report ID as dealt with")
    p_dump = sub.add_parser("dump", help="open-data exports: check a downloaded month")
    dump = p_dump.add_subparsers(dest="dump_command", required=True, metavar="DUMP_COMMAND")
    p_ver = dump.add_parser("verify", help="replay every record of an export to its stored result "
                                           "(exit 1 on any mismatch or corrupt line)")
    p_ver.add_argument("file", help="an export archive (ludothek-games-YYYY-MM.tar), its games.jsonl.gz, "
                                    "or JSON lines")
    p_ver.add_argument("--quiet", "-q", action="store_true", help="only the summary line")
    return parser


def dump_verify(path: str, quiet: bool = False, out: TextIO | None = None) -> int:
    """``ludothek dump verify FILE``: each mismatch and corrupt line, then a summary; 1 if anything is wrong."""
    from ludothek.services.opendata import verify_dump

    out = out or sys.stdout
    report = verify_dump(path)
    if not quiet:
        for line, game, what in report.problems:
            where = f"line {line}" + (f" (game {game})" if game is not None else "")
            print(f"{where}: {what}", file=out)
        shown = len(report.problems)
        if shown < report.mismatches + report.corrupt:
            print(f"... and {report.mismatches + report.corrupt - shown} more", file=out)
    print(report.summary(), file=out if report.passed else sys.stderr)
    return 0 if report.passed else 1


def worker(db: str | None, interval: float) -> int:
    """Run the background jobs in this process until interrupted (several may run at once).

    Every server process runs the same jobs in a thread already; separate workers
    add capacity or keep the jobs going on machines that serve no pages.  A seat a
    bot takes over here is played by the bot workers (``ludothek bots``).
    """
    from ludothek.portal.settings import Settings
    from ludothek.services import Site
    from ludothek.storage import make_engine, migrate
    from ludothek.workers.clocks import ClockJob
    from ludothek.workers.notices import NoticeRunners, wake_on_redis
    from ludothek.workers.runner import Runner
    from ludothek.workers.tournaments import TournamentJob

    settings = Settings.from_env(db)
    engine = make_engine(settings.db_url)
    migrate(engine)
    site = Site(engine)
    from ludothek.portal.app import make_mail_job
    from ludothek.workers.mail_links import MailLinks

    # Mail links are signed with the deployment's secret, which lives in the database like the servers'.
    secret = settings.secret_key or site.db.meta("session_secret", lambda: secrets.token_urlsafe(48))
    mail = make_mail_job(settings, site, MailLinks(secret, settings.base_url, settings.email_undo_days))
    clocks = Runner([ClockJob(site), TournamentJob(site)], interval=interval)
    from ludothek.workers.exports import ExportJob
    from ludothek.workers.statistics import StatisticsJob

    exports = Runner([ExportJob(site, settings.export_dir)] * settings.exports
                     + [StatisticsJob(site)] * settings.statistics, interval=60.0)
    notices = NoticeRunners(mail, interval=min(interval, settings.notice_interval))
    woken = threading.Event()
    if settings.redis_url:
        # The open-tab channel reaches the servers' tabs through Redis (a publisher thread), and every move a
        # server publishes there wakes this worker's fan-out at once.
        from ludothek.portal.live.hub import RedisHub

        hub = RedisHub(settings.redis_url, deployment=secret)
        site.user_messages.append(hub.publish_user)
        wake_on_redis(settings.redis_url, hub.channel, notices.wake, woken)
    print(f"Ludothek worker on {settings.db_url}: clocks every {interval:g} s, notices on "
          f"{', '.join(c.name for c in mail.channels)}", flush=True)
    clocks.start()
    if exports.jobs:
        exports.start()
    try:
        notices.run_forever()
    except KeyboardInterrupt:
        pass
    finally:
        woken.set()
        clocks.stop()
        exports.stop()
        mail.stop()
        engine.dispose()
    return 0


def backup_or_restore(command: str, file: str, db: str | None, out: TextIO | None = None) -> int:
    """``ludothek backup FILE`` / ``ludothek restore FILE``: say what the copy holds, or why it failed."""
    from ludothek.portal.settings import Settings
    from ludothek.storage.backup import BackupError, backup, restore

    out = out or sys.stdout
    db_url = Settings.from_env(db).db_url
    try:
        summary = backup(db_url, file) if command == "backup" else restore(db_url, file)
    except BackupError as exc:
        print(f"ludothek {command}: {exc}", file=sys.stderr)
        return 1
    done = f"backed up to {file}" if command == "backup" else f"restored from {file}"
    print(f"{done}: {summary.describe()}", file=out)
    return 0


def admin(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """``ludothek admin users|block|unblock|make-admin|cancel-game``: what the admin page does, from a shell."""
    from ludothek.portal.settings import Settings
    from ludothek.services import Site
    from ludothek.storage import StoreError, make_engine, migrate

    out = out or sys.stdout
    engine = make_engine(Settings.from_env(args.db).db_url)
    try:
        migrate(engine)
        site = Site(engine)
        who = getattr(args, "user", None)
        target: str | int | None = int(who[1:]) if who and who.startswith("#") and who[1:].isdigit() else who
        try:
            if args.admin_command == "users":
                rows = site.admin.list_users(args.search, blocked_only=args.blocked, limit=args.limit)
                print(f"{'id':>6}  {'name':<20}  {'games':>5}  role", file=out)
                for r in rows:
                    role = ", ".join(x for x, on in (("admin", r.is_admin), ("guest", r.is_guest),
                                                     (f"blocked {r.blocked_at:%Y-%m-%d %H:%M}" if r.blocked_at else "",
                                                      r.blocked_at is not None)) if on)
                    print(f"{r.id:>6}  {r.name:<20}  {r.games:>5}  {role}", file=out)
                print(f"{len(rows)} user{'s' if len(rows) != 1 else ''}", file=out)
            elif args.admin_command == "block":
                user = site.admin.block_account(target or "")
                print(f"{user.name} is blocked: no more logins, every session and token has ended", file=out)
            elif args.admin_command == "unblock":
                print(f"{site.admin.unblock_account(target or '').name} may log in again", file=out)
            elif args.admin_command == "make-admin":
                user = site.admin.set_admin(target or "", not args.revoke)
                print(f"{user.name} is {'now' if user.is_admin else 'no longer'} an administrator", file=out)
            elif args.admin_command == "cancel-game":
                print(f"game {args.game} is {site.admin.end_game(args.game)}", file=out)
        except StoreError as exc:
            print(f"ludothek admin: {exc.message}", file=sys.stderr)
            return 1
    finally:
        engine.dispose()
    return 0


def check_lobby(db: str | None, repair: bool, out: TextIO | None = None) -> int:
    """Report lobby damage (exit 1 if any is left), and mend it with ``--repair``."""
    from ludothek.portal.settings import Settings
    from ludothek.storage import make_engine, migrate
    from ludothek.storage.lobby_check import lobby_problems, repair_lobby

    out = out or sys.stdout
    engine = make_engine(Settings.from_env(db).db_url)
    try:
        migrate(engine)
        problems = repair_lobby(engine) if repair else lobby_problems(engine)
    finally:
        engine.dispose()
    for p in problems:
        print(("repaired: " if repair else "") + p.detail, file=out)
    if not problems:
        print("the lobby is sound: no started game has an empty seat, none was cancelled after starting", file=out)
    return 1 if problems and not repair else 0


def ratings(db: str | None, recompute: bool, out: TextIO | None = None) -> int:
    """``ludothek ratings --recompute``: every rating and rating history rebuilt from the stored results."""
    from ludothek.portal.settings import Settings
    from ludothek.services import Site
    from ludothek.storage import make_engine, migrate

    out = out or sys.stdout
    if not recompute:
        print("nothing to do: pass --recompute to rebuild every rating from the stored results", file=out)
        return 2
    engine = make_engine(Settings.from_env(db).db_url)
    try:
        migrate(engine)
        games, players = Site(engine).ratings.recompute_ratings()
    finally:
        engine.dispose()
    print(f"recomputed the ratings of {players} players from {games} rated games, and every profile's games played "
          "and won", file=out)
    return 0


def arena(game_id: str, bot_list: str, players: int, games: int, seed: int, option_items: Sequence[str],
          as_json: bool, progress: bool, seconds: float | None = None, iterations: int | None = None,
          out: TextIO | None = None) -> int:
    """Bots play each other with rotating seats; print each bot's win rate (Wilson 95 %), score, placing, speed."""
    from ludothek.bots.arena import arena_bot, format_table, known_bots, run_arena

    out = out or sys.stdout
    names = [n.strip() for n in bot_list.split(",") if n.strip()]
    if games < 1:
        raise SystemExit("ludothek: --games must be at least 1")
    template = _new_state(game_id, players, option_items)
    known = known_bots(game_id)
    unknown = [n for n in names if n not in known]
    if not names or unknown:
        raise SystemExit(f"ludothek: --bots names bots from {', '.join(known)}, not {bot_list!r}")

    def factory(name: str) -> Bot:
        if name == "hard" and (seconds is not None or iterations is not None):
            from ludothek.bots.ismcts import IsmctsBot

            return IsmctsBot(seconds=seconds if seconds is not None else 2.0, iterations=iterations)
        return arena_bot(game_id, name)

    report = run_arena(game_id, names, players, games, seed, template.options, factory=factory, progress=progress)
    print(json.dumps(report) if as_json else format_table(report), file=out)
    return 0


def list_games(out: TextIO | None = None) -> int:
    out = out or sys.stdout
    for gid in engine.games():
        game = engine.load(gid)
        print(f"{gid}: {game.title['en']} / {game.title['de']} ({game.min_players}-{game.max_players} players)",
              file=out)
        for opt in game.options:
            print(f"    {opt.name} = {' | '.join(opt.values)} (default {opt.default}): {opt.label['en']}", file=out)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "play":
        return play(args.game, args.players, args.options, args.lang, args.seat - 1, args.bot, args.seed, args.save)
    if args.command == "simulate":
        stats = simulate(args.game, args.games, args.players, args.options, args.seed, args.bot,
                         progress=not args.no_progress and args.games >= 200)
        if args.json:
            print(json.dumps(stats))
        return 0
    if args.command == "arena":
        return arena(args.game, args.bots, args.players, args.games, args.seed, args.options, args.json,
                     progress=not args.no_progress, seconds=args.seconds, iterations=args.iterations)
    if args.command == "replay":
        return replay_file(args.file, args.lang, None if args.seat is None else args.seat - 1)
    if args.command == "serve":
        return serve(args.db, args.host, args.port, args.redis, args.workers, args.bot_workers)
    if args.command == "bots":
        from ludothek.portal.botprocs import run_bot_process

        code = run_bot_process(args.db, args.redis, args.delay, args.nice, parent=args.parent)
        # A bot still thinking in a thread (SafeBot abandons overrunning ones) must not hold the exit.
        sys.stdout.flush()
        sys.stderr.flush()
        logging.shutdown()
        os._exit(code)
    if args.command == "games":
        return list_games()
    if args.command == "worker":
        return worker(args.db, args.interval)
    if args.command in ("backup", "restore"):
        return backup_or_restore(args.command, args.file, args.db)
    if args.command == "ratings":
        return ratings(args.db, args.recompute)
    if args.command == "admin" and args.admin_command == "check-lobby":
        return check_lobby(args.db, args.repair)
    if args.command == "admin" and args.admin_command == "reports":
        from ludothek.admin_reports import reports

        return reports(args.db, args.all, args.json, args.resolve)
    if args.command == "admin":
        return admin(args)
    if args.command == "dump" and args.dump_command == "verify":
        return dump_verify(args.file, args.quiet)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
