"""Friends, blocks, last activity and game chat in the store, on SQLite and PostgreSQL (issue 12, part 4)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import func, select

from ludothek.storage import BadRequest, Conflict, Forbidden, NotFound, Store, UserInfo, make_engine, migrate
from ludothek.storage.blocks import Blocked
from ludothek.storage.chat import MAX_CHAT_LENGTH
from ludothek.storage.models import ChatMessage, ChatReport, Friend, GameRow, SeatRow
from tests.portal.conftest import FAST_HASHER


def new_store(url: str) -> Store:
    engine = make_engine(url)
    migrate(engine)
    return Store(engine, hasher=FAST_HASHER)


@pytest.fixture
def store(any_db: str) -> Any:
    s = new_store(any_db)
    yield s
    s.engine.dispose()


def users(store: Store, *names: str) -> list[UserInfo]:
    return [store.register(n, "password-" + n) for n in names]


def count(store: Store, table: Any, *where: Any) -> int:
    with store.engine.begin() as conn:
        return int(conn.execute(select(func.count()).select_from(table).where(*where)).scalar_one())


def running_game(store: Store, a: UserInfo, b: UserInfo) -> int:
    gid = store.create_game(a, "toypig", 2, {"length": "short"})
    store.join(gid, b)
    assert store.game(gid).status == "running"
    return gid


def play_to_end(store: Store, gid: int) -> None:
    for i in range(2000):
        info = store.game(gid)
        if info.status != "running":
            return
        try:
            store.submit(gid, info.to_move, "roll" if i % 3 else "hold", info.seq)
        except BadRequest:
            store.submit(gid, info.to_move, "roll", info.seq)
    raise AssertionError("the game did not end")


# ----------------------------------------------------------------------------- friends
def test_friends_are_one_way_and_show_only_last_activity(store: Store) -> None:
    ann, bob, _cid = users(store, "ann", "bob", "cid")
    entry, new = store.befriend(ann, "Bob")  # names regardless of case
    assert new and entry.name == "bob" and entry.last_active is None
    assert store.befriend(ann, "bob")[1] is False  # adding twice changes nothing
    store.befriend(ann, "cid")
    assert [f.name for f in store.friends(ann.id)] == ["bob", "cid"]
    assert store.friends(bob.id) == []  # one-way: bob's list is his own
    store.touch(bob.id, now=datetime(2026, 5, 4, 13, 47, 31, tzinfo=UTC))
    bob_entry = next(f for f in store.friends(ann.id) if f.name == "bob")
    assert bob_entry.last_active == datetime(2026, 5, 4, 13, 45, tzinfo=UTC)  # rounded down to five minutes
    store.touch(bob.id, now=datetime(2026, 5, 4, 14, 30, tzinfo=UTC))  # within the step: not written again
    assert next(f for f in store.friends(ann.id) if f.name == "bob").last_active == bob_entry.last_active
    assert store.friend_names(ann.id) == ["bob", "cid"]
    store.unfriend(ann, "cid")
    assert [f.name for f in store.friends(ann.id)] == ["bob"]


def test_friend_refusals_store_nothing(store: Store) -> None:
    ann, _bob = users(store, "ann", "bob")
    with pytest.raises(BadRequest) as exc:
        store.befriend(ann, "ann")
    assert exc.value.params["code_key"] == "befriend_self"
    with pytest.raises(NotFound):
        store.befriend(ann, "nobody")
    with pytest.raises(NotFound):
        store.unfriend(ann, "bob")
    with pytest.raises(BadRequest):
        store.befriend(ann, "bad\ud800")
    assert count(store, Friend) == 0


# ----------------------------------------------------------------------------- blocks
def test_a_block_ends_friendship_and_invitations_either_way(store: Store) -> None:
    ann, bob, cid = users(store, "ann", "bob", "cid")
    store.befriend(ann, "bob")
    store.befriend(bob, "ann")
    store.block(ann, "bob")
    assert store.friends(ann.id) == [] and store.friends(bob.id) == []
    assert [b.name for b in store.blocks(ann.id)] == ["bob"] and store.blocks(bob.id) == []
    with pytest.raises(Blocked) as exc:
        store.befriend(bob, "ann")
    assert exc.value.status == 403 and exc.value.params["code_key"] == "blocked_friend"
    with pytest.raises(Blocked):
        store.befriend(ann, "bob")
    games = count(store, GameRow)
    invite_bob = [{"kind": "me"}, {"kind": "invite", "user": "ann"}]
    with pytest.raises(Blocked) as exc:  # the blocked user cannot invite the blocker ...
        store.create_game(bob, "toypig", 2, None, invite_bob)
    assert exc.value.params["code_key"] == "blocked_invite"
    with pytest.raises(Blocked) as exc:  # ... and the blocker cannot invite them while the block lasts
        store.create_game(ann, "toypig", 2, None, [{"kind": "me"}, {"kind": "invite", "user": "bob"}])
    assert exc.value.params["code_key"] == "you_blocked"
    assert count(store, GameRow) == games  # nothing stored
    # A third person may invite both: whether two others blocked each other is none of their business.
    gid = store.create_game(cid, "toypig", 3, None,
                            [{"kind": "me"}, {"kind": "invite", "user": "ann"}, {"kind": "invite", "user": "bob"}])
    store.join(gid, ann)
    with pytest.raises(Blocked) as exc:  # ... but the second of them cannot sit down with the first
        store.join(gid, bob)
    assert exc.value.params["code_key"] == "blocked_join"
    assert [s.kind for s in store.game(gid).seats] == ["player", "player", "invited"]
    store.unblock(ann, "bob")
    with pytest.raises(NotFound):
        store.unblock(ann, "bob")
    assert store.join(gid, bob).status == "running"


def test_a_blocked_user_cannot_join_or_see_the_blockers_waiting_games(store: Store) -> None:
    ann, bob, cid = users(store, "ann", "bob", "cid")
    own = store.create_game(ann, "toypig", 3, None)
    joined = store.create_game(cid, "toypig", 3, None)
    store.join(joined, ann)
    store.block(ann, "bob")
    assert own not in [g.id for g in store.open_games(bob)]
    for gid, key in ((own, "blocked_join"), (joined, "blocked_join")):
        with pytest.raises(Blocked) as exc:
            store.join(gid, bob)
        assert exc.value.params["code_key"] == key
    # Bob's games are hidden from ann, and ann cannot sit down with him either.
    his = store.create_game(bob, "toypig", 2, None)
    assert his not in [g.id for g in store.open_games(ann)]
    with pytest.raises(Blocked) as exc:
        store.join(his, ann)
    assert exc.value.params["code_key"] == "you_blocked_player"
    assert all(s.user_id != bob.id for g in (own, joined) for s in store.game(g).seats)


def test_blocking_gives_back_seats_in_shared_waiting_games(store: Store) -> None:
    ann, bob, cid = users(store, "ann", "bob", "cid")
    mine = store.create_game(ann, "toypig", 3, None)
    store.join(mine, bob)
    invited = store.create_game(ann, "toypig", 3, None, [{"kind": "me"}, {"kind": "invite", "user": "bob"},
                                                           {"kind": "open"}])
    theirs = store.create_game(bob, "toypig", 3, None)
    store.join(theirs, ann)
    other = store.create_game(cid, "toypig", 3, None)
    store.join(other, bob)
    store.join(other, ann)  # full: it runs, and a block cannot take anyone out of a running game
    assert store.game(other).status == "running"
    store.block(ann, "bob")
    assert [s.kind for s in store.game(mine).seats] == ["player", "open", "open"]
    assert [s.kind for s in store.game(invited).seats] == ["player", "open", "open"]
    # In the blocked user's own game it is the blocker who leaves.
    assert [(s.kind, s.user_id) for s in store.game(theirs).seats] == [("player", bob.id), ("open", None),
                                                                      ("open", None)]
    assert store.game(other).status == "running" and len({s.user_id for s in store.game(other).seats}) == 3


def test_a_block_and_a_join_at_once_never_seat_the_two_together(any_db: str) -> None:
    """Two stores (two server processes) race a block against the join of the blocked user."""
    one, two = new_store(any_db), new_store(any_db)
    ann, bob = users(one, "ann", "bob")
    outcomes = set()
    for _ in range(12):
        gid = one.create_game(ann, "toypig", 3, None)
        barrier = threading.Barrier(2)
        results: dict[str, str] = {}

        def block(results: dict[str, str] = results, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            one.block(ann, "bob")
            results["block"] = "ok"

        def join(gid: int = gid, results: dict[str, str] = results, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            try:
                two.join(gid, bob)
                results["join"] = "ok"
            except Blocked:
                results["join"] = "refused"

        threads = [threading.Thread(target=block), threading.Thread(target=join)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results["block"] == "ok"
        assert count(one, SeatRow, SeatRow.game_id == gid, SeatRow.user_id == bob.id) == 0
        outcomes.add(results["join"])
        one.unblock(ann, "bob")
        one.cancel(gid, ann)
    assert outcomes <= {"ok", "refused"}
    for s in (one, two):
        s.engine.dispose()


def test_block_refusals(store: Store) -> None:
    ann, _ = users(store, "ann", "bob")
    with pytest.raises(BadRequest):
        store.block(ann, "ann")
    with pytest.raises(NotFound):
        store.block(ann, "nobody")
    assert store.block(ann, "bob")[1] is True
    assert store.block(ann, "bob")[1] is False
    assert len(store.blocks(ann.id)) == 1


# ----------------------------------------------------------------------------- chat
def test_the_table_chats_and_each_message_keeps_its_move_number(store: Store) -> None:
    ann, bob, eve = users(store, "ann", "bob", "eve")
    gid = running_game(store, ann, bob)
    first = store.post_chat(gid, ann, "  good luck!  ")
    assert first.line.text == "good luck!" and first.line.seq == store.game(gid).seq
    assert first.to == sorted([ann.id, bob.id]) and first.skip == []
    play = store.game(gid)
    store.submit(gid, play.to_move, "roll", play.seq)
    second = store.post_chat(gid, bob, "thanks")
    assert second.line.seq == store.game(gid).seq > first.line.seq
    view = store.chat(gid, bob)
    assert [(m.author, m.text) for m in view.messages] == [("ann", "good luck!"), ("bob", "thanks")]
    assert view.can_write and view.hidden == 0
    assert [m.text for m in store.chat(gid, ann, upto_seq=first.line.seq).messages] == ["good luck!"]
    assert [m.text for m in store.chat(gid, ann, after=first.line.id).messages] == ["thanks"]
    # A spectator reads nothing while the game runs and cannot write.
    for viewer in (eve, None):
        with pytest.raises(Forbidden):
            store.chat(gid, viewer)
    with pytest.raises(Forbidden) as exc:
        store.post_chat(gid, eve, "hi")
    assert exc.value.params["code_key"] == "chat_not_seated"
    assert count(store, ChatMessage) == 2
    play_to_end(store, gid)
    ended = store.chat(gid, eve)
    assert [m.text for m in ended.messages] == ["good luck!", "thanks"] and not ended.can_write
    assert store.chat(gid, None).messages
    assert store.post_chat(gid, ann, "gg").to is None  # after the end: every watcher may hear it


def test_chat_text_is_plain_single_line_and_bounded(store: Store) -> None:
    ann, bob = users(store, "ann", "bob")
    gid = running_game(store, ann, bob)
    got = store.post_chat(gid, ann, "a\tb\r\nc\x00d\x1b[31me\x7f\u0085f <script>alert(1)</script>")
    assert got.line.text == "a b  cd[31me f <script>alert(1)</script>"
    admitted: list[int] = []
    for text, key in (("x" * (MAX_CHAT_LENGTH + 1), "chat_too_long"), ("  \n\x07 ", "chat_empty"),
                      ("\ud800", "bad_text"), (None, "bad_text")):
        with pytest.raises(BadRequest) as exc:
            store.post_chat(gid, ann, text, admit=lambda: admitted.append(1))
        assert exc.value.params["code_key"] == key
    assert admitted == []  # refused before the rate limit counts it
    assert store.post_chat(gid, ann, "é" * MAX_CHAT_LENGTH, admit=lambda: admitted.append(1)).line.text
    assert admitted == [1] and count(store, ChatMessage) == 2


def test_the_blocker_stops_reading_the_blocked_and_nobody_learns_more(store: Store) -> None:
    ann, bob, cid = users(store, "ann", "bob", "cid")
    gid = store.create_game(ann, "toypig", 3, None)
    store.join(gid, bob)
    store.join(gid, cid)
    store.post_chat(gid, bob, "before the block")
    store.block(ann, "bob")
    posted = store.post_chat(gid, bob, "after the block")
    assert ann.id not in (posted.to or []) and posted.skip == [ann.id]
    mine = store.chat(gid, ann)
    assert [m.text for m in mine.messages] == [] and mine.hidden == 2
    assert [m.text for m in store.chat(gid, cid).messages] == ["before the block", "after the block"]
    assert store.post_chat(gid, ann, "to the table").to == sorted([bob.id, cid.id, ann.id])  # bob still reads ann
    assert [m.text for m in store.chat(gid, bob).messages][-1] == "to the table"


def test_reports(store: Store) -> None:
    ann, bob, eve = users(store, "ann", "bob", "eve")
    gid = running_game(store, ann, bob)
    msg = store.post_chat(gid, bob, "rude words").line
    rid = store.report_chat(msg.id, ann, "abuse")
    with pytest.raises(Conflict) as exc:
        store.report_chat(msg.id, ann, "spam")
    assert exc.value.params["code_key"] == "already_reported"
    with pytest.raises(BadRequest):
        store.report_chat(msg.id, bob, "abuse")  # one's own
    with pytest.raises(NotFound):
        store.report_chat(msg.id, eve, "abuse")  # cannot see it: the same answer as for no message
    with pytest.raises(NotFound):
        store.report_chat(msg.id + 1000, ann, "abuse")
    with pytest.raises(BadRequest):
        store.report_chat(msg.id, ann, "bored")
    assert count(store, ChatReport) == 1
    queue = store.chat_reports()
    assert [(r.id, r.reporter, r.author, r.text, r.reason, r.game, r.reports) for r in queue] == [
        (rid, "ann", "bob", "rude words", "abuse", "toypig", 1)]
    store.resolve_report(rid)
    assert store.chat_reports() == [] and len(store.chat_reports(include_resolved=True)) == 1
    with pytest.raises(NotFound):
        store.resolve_report(rid)


def test_ludothek_admin_reports_lists_and_resolves(any_db: str, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from ludothek.cli import main as cli_main

    store = new_store(any_db)
    ann, bob, cid = users(store, "ann", "bob", "cid")
    gid = store.create_game(ann, "toypig", 3, None)
    store.join(gid, bob)
    store.join(gid, cid)
    msg = store.post_chat(gid, bob, "you are <b>bad</b> \u202e!").line
    first = store.report_chat(msg.id, ann, "abuse")
    store.report_chat(msg.id, cid, "spam")
    store.engine.dispose()
    assert cli_main(["admin", "reports", "--db", any_db]) == 0
    text = capsys.readouterr().out
    assert f"#{first} [open]" in text and "ann reports abuse (2 reports on this message)" in text
    assert f"game {gid} (toypig), move {msg.seq}, message {msg.id} by bob" in text
    assert "you are <b>bad</b> \\u202e!" in text  # shown, never obeyed by the terminal
    assert cli_main(["admin", "reports", "--db", any_db, "--resolve", str(first)]) == 0
    assert cli_main(["admin", "reports", "--db", any_db, "--resolve", str(first)]) == 1
    capsys.readouterr()
    assert cli_main(["admin", "reports", "--db", any_db, "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["reporter"], r["reason"], r["text"]) for r in lines] == [("cid", "spam", msg.text)]
    assert cli_main(["admin", "reports", "--db", any_db, "--all"]) == 0
    assert f"#{first} [resolved" in capsys.readouterr().out
