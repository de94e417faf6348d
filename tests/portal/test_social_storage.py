"""Friends, blocks, last activity and game chat in the store, on SQLite and PostgreSQL (issue 12, part 4)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import func, select

from ludothek.services import Site
from ludothek.services.community.chat import MAX_CHAT_LENGTH
from ludothek.storage import BadRequest, Conflict, Forbidden, NotFound, UserInfo, make_engine, migrate
from ludothek.storage.blocks import Blocked
from ludothek.storage.models import ChatMessage, ChatReport, Friend, GameRow, SeatRow
from tests.portal.conftest import FAST_HASHER


def new_site(url: str) -> Site:
    engine = make_engine(url)
    migrate(engine)
    return Site(engine, hasher=FAST_HASHER)


@pytest.fixture
def site(any_db: str) -> Any:
    s = new_site(any_db)
    yield s
    s.engine.dispose()


def users(site: Site, *names: str) -> list[UserInfo]:
    return [site.accounts.register(n, "password-" + n) for n in names]


def count(site: Site, table: Any, *where: Any) -> int:
    with site.engine.begin() as conn:
        return int(conn.execute(select(func.count()).select_from(table).where(*where)).scalar_one())


def running_game(site: Site, a: UserInfo, b: UserInfo) -> int:
    gid = site.lobby.create_game(a, "toypig", 2, {"length": "short"})
    site.lobby.join(gid, b)
    assert site.games.game(gid).status == "running"
    return gid


def play_to_end(site: Site, gid: int) -> None:
    for i in range(2000):
        info = site.games.game(gid)
        if info.status != "running":
            return
        try:
            site.play.submit(gid, "roll" if i % 3 else "hold", info.seq, seat=info.to_move)
        except BadRequest:
            site.play.submit(gid, "roll", info.seq, seat=info.to_move)
    raise AssertionError("the game did not end")


# ----------------------------------------------------------------------------- friends
def test_friends_are_one_way_and_show_only_last_activity(site: Site) -> None:
    ann, bob, _cid = users(site, "ann", "bob", "cid")
    entry, new = site.social.befriend(ann, "Bob")  # names regardless of case
    assert new and entry.name == "bob" and entry.last_active is None
    assert site.social.befriend(ann, "bob")[1] is False  # adding twice changes nothing
    site.social.befriend(ann, "cid")
    assert [f.name for f in site.social.friends(ann.id)] == ["bob", "cid"]
    assert site.social.friends(bob.id) == []  # one-way: bob's list is his own
    site.social.touch(bob.id, now=datetime(2026, 5, 4, 13, 47, 31, tzinfo=UTC))
    bob_entry = next(f for f in site.social.friends(ann.id) if f.name == "bob")
    assert bob_entry.last_active == datetime(2026, 5, 4, 13, 45, tzinfo=UTC)  # rounded down to five minutes
    site.social.touch(bob.id, now=datetime(2026, 5, 4, 14, 30, tzinfo=UTC))  # within the step: not written again
    assert next(f for f in site.social.friends(ann.id) if f.name == "bob").last_active == bob_entry.last_active
    assert site.social.friend_names(ann.id) == ["bob", "cid"]
    site.social.unfriend(ann, "cid")
    assert [f.name for f in site.social.friends(ann.id)] == ["bob"]


def test_friend_refusals_store_nothing(site: Site) -> None:
    ann, _bob = users(site, "ann", "bob")
    with pytest.raises(BadRequest) as exc:
        site.social.befriend(ann, "ann")
    assert exc.value.params["code_key"] == "befriend_self"
    with pytest.raises(NotFound):
        site.social.befriend(ann, "nobody")
    with pytest.raises(NotFound):
        site.social.unfriend(ann, "bob")
    with pytest.raises(BadRequest):
        site.social.befriend(ann, "bad\ud800")
    assert count(site, Friend) == 0


# ----------------------------------------------------------------------------- blocks
def test_a_block_ends_friendship_and_invitations_either_way(site: Site) -> None:
    ann, bob, cid = users(site, "ann", "bob", "cid")
    site.social.befriend(ann, "bob")
    site.social.befriend(bob, "ann")
    site.social.block(ann, "bob")
    assert site.social.friends(ann.id) == [] and site.social.friends(bob.id) == []
    assert [b.name for b in site.social.blocks(ann.id)] == ["bob"] and site.social.blocks(bob.id) == []
    with pytest.raises(Blocked) as exc:
        site.social.befriend(bob, "ann")
    assert exc.value.status == 403 and exc.value.params["code_key"] == "blocked_friend"
    with pytest.raises(Blocked):
        site.social.befriend(ann, "bob")
    games = count(site, GameRow)
    invite_bob = [{"kind": "me"}, {"kind": "invite", "user": "ann"}]
    with pytest.raises(Blocked) as exc:  # the blocked user cannot invite the blocker ...
        site.lobby.create_game(bob, "toypig", 2, None, invite_bob)
    assert exc.value.params["code_key"] == "blocked_invite"
    with pytest.raises(Blocked) as exc:  # ... and the blocker cannot invite them while the block lasts
        site.lobby.create_game(ann, "toypig", 2, None, [{"kind": "me"}, {"kind": "invite", "user": "bob"}])
    assert exc.value.params["code_key"] == "you_blocked"
    assert count(site, GameRow) == games  # nothing stored
    # A third person may invite both: whether two others blocked each other is none of their business.
    gid = site.lobby.create_game(cid, "toypig", 3, None,
                            [{"kind": "me"}, {"kind": "invite", "user": "ann"}, {"kind": "invite", "user": "bob"}])
    site.lobby.join(gid, ann)
    with pytest.raises(Blocked) as exc:  # ... but the second of them cannot sit down with the first
        site.lobby.join(gid, bob)
    assert exc.value.params["code_key"] == "blocked_join"
    assert [s.kind for s in site.games.game(gid).seats] == ["player", "player", "invited"]
    site.social.unblock(ann, "bob")
    with pytest.raises(NotFound):
        site.social.unblock(ann, "bob")
    assert site.lobby.join(gid, bob).status == "running"


def test_a_blocked_user_cannot_join_or_see_the_blockers_waiting_games(site: Site) -> None:
    ann, bob, cid = users(site, "ann", "bob", "cid")
    own = site.lobby.create_game(ann, "toypig", 3, None)
    joined = site.lobby.create_game(cid, "toypig", 3, None)
    site.lobby.join(joined, ann)
    site.social.block(ann, "bob")
    assert own not in [g.id for g in site.lobby.open_games(bob)]
    for gid, key in ((own, "blocked_join"), (joined, "blocked_join")):
        with pytest.raises(Blocked) as exc:
            site.lobby.join(gid, bob)
        assert exc.value.params["code_key"] == key
    # Bob's games are hidden from ann, and ann cannot sit down with him either.
    his = site.lobby.create_game(bob, "toypig", 2, None)
    assert his not in [g.id for g in site.lobby.open_games(ann)]
    with pytest.raises(Blocked) as exc:
        site.lobby.join(his, ann)
    assert exc.value.params["code_key"] == "you_blocked_player"
    assert all(s.user_id != bob.id for g in (own, joined) for s in site.games.game(g).seats)


def test_blocking_gives_back_seats_in_shared_waiting_games(site: Site) -> None:
    ann, bob, cid = users(site, "ann", "bob", "cid")
    mine = site.lobby.create_game(ann, "toypig", 3, None)
    site.lobby.join(mine, bob)
    invited = site.lobby.create_game(ann, "toypig", 3, None, [{"kind": "me"}, {"kind": "invite", "user": "bob"},
                                                           {"kind": "open"}])
    theirs = site.lobby.create_game(bob, "toypig", 3, None)
    site.lobby.join(theirs, ann)
    other = site.lobby.create_game(cid, "toypig", 3, None)
    site.lobby.join(other, bob)
    site.lobby.join(other, ann)  # full: it runs, and a block cannot take anyone out of a running game
    assert site.games.game(other).status == "running"
    site.social.block(ann, "bob")
    assert [s.kind for s in site.games.game(mine).seats] == ["player", "open", "open"]
    assert [s.kind for s in site.games.game(invited).seats] == ["player", "open", "open"]
    # In the blocked user's own game it is the blocker who leaves.
    assert [(s.kind, s.user_id) for s in site.games.game(theirs).seats] == [("player", bob.id), ("open", None),
                                                                      ("open", None)]
    assert site.games.game(other).status == "running" and len({s.user_id for s in site.games.game(other).seats}) == 3


def test_a_block_and_a_join_at_once_never_seat_the_two_together(any_db: str) -> None:
    """Two stores (two server processes) race a block against the join of the blocked user."""
    one, two = new_site(any_db), new_site(any_db)
    ann, bob = users(one, "ann", "bob")
    outcomes = set()
    for _ in range(12):
        gid = one.lobby.create_game(ann, "toypig", 3, None)
        barrier = threading.Barrier(2)
        results: dict[str, str] = {}

        def block(results: dict[str, str] = results, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            one.social.block(ann, "bob")
            results["block"] = "ok"

        def join(gid: int = gid, results: dict[str, str] = results, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            try:
                two.lobby.join(gid, bob)
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
        one.social.unblock(ann, "bob")
        one.lobby.cancel(gid, ann)
    assert outcomes <= {"ok", "refused"}
    for s in (one, two):
        s.engine.dispose()


def test_block_refusals(site: Site) -> None:
    ann, _ = users(site, "ann", "bob")
    with pytest.raises(BadRequest):
        site.social.block(ann, "ann")
    with pytest.raises(NotFound):
        site.social.block(ann, "nobody")
    assert site.social.block(ann, "bob")[1] is True
    assert site.social.block(ann, "bob")[1] is False
    assert len(site.social.blocks(ann.id)) == 1


# ----------------------------------------------------------------------------- chat
def test_the_table_chats_and_each_message_keeps_its_move_number(site: Site) -> None:
    ann, bob, eve = users(site, "ann", "bob", "eve")
    gid = running_game(site, ann, bob)
    first = site.chat.post_chat(gid, ann, "  good luck!  ")
    assert first.line.text == "good luck!" and first.line.seq == site.games.game(gid).seq
    assert first.to == sorted([ann.id, bob.id]) and first.skip == []
    play = site.games.game(gid)
    site.play.submit(gid, "roll", play.seq, seat=play.to_move)
    second = site.chat.post_chat(gid, bob, "thanks")
    assert second.line.seq == site.games.game(gid).seq > first.line.seq
    view = site.chat.chat(gid, bob)
    assert [(m.author, m.text) for m in view.messages] == [("ann", "good luck!"), ("bob", "thanks")]
    assert view.can_write and view.hidden == 0
    assert [m.text for m in site.chat.chat(gid, ann, upto_seq=first.line.seq).messages] == ["good luck!"]
    assert [m.text for m in site.chat.chat(gid, ann, after=first.line.id).messages] == ["thanks"]
    # A spectator reads nothing while the game runs and cannot write.
    for viewer in (eve, None):
        with pytest.raises(Forbidden):
            site.chat.chat(gid, viewer)
    with pytest.raises(Forbidden) as exc:
        site.chat.post_chat(gid, eve, "hi")
    assert exc.value.params["code_key"] == "chat_not_seated"
    assert count(site, ChatMessage) == 2
    play_to_end(site, gid)
    ended = site.chat.chat(gid, eve)
    assert [m.text for m in ended.messages] == ["good luck!", "thanks"] and not ended.can_write
    assert site.chat.chat(gid, None).messages
    assert site.chat.post_chat(gid, ann, "gg").to is None  # after the end: every watcher may hear it


def test_chat_text_is_plain_single_line_and_bounded(site: Site) -> None:
    ann, bob = users(site, "ann", "bob")
    gid = running_game(site, ann, bob)
    got = site.chat.post_chat(gid, ann, "a\tb\r\nc\x00d\x1b[31me\x7f\u0085f <script>alert(1)</script>")
    assert got.line.text == "a b  cd[31me f <script>alert(1)</script>"
    admitted: list[int] = []
    for text, key in (("x" * (MAX_CHAT_LENGTH + 1), "chat_too_long"), ("  \n\x07 ", "chat_empty"),
                      ("\ud800", "bad_text"), (None, "bad_text")):
        with pytest.raises(BadRequest) as exc:
            site.chat.post_chat(gid, ann, text, admit=lambda: admitted.append(1))
        assert exc.value.params["code_key"] == key
    assert admitted == []  # refused before the rate limit counts it
    assert site.chat.post_chat(gid, ann, "é" * MAX_CHAT_LENGTH, admit=lambda: admitted.append(1)).line.text
    assert admitted == [1] and count(site, ChatMessage) == 2


def test_the_blocker_stops_reading_the_blocked_and_nobody_learns_more(site: Site) -> None:
    ann, bob, cid = users(site, "ann", "bob", "cid")
    gid = site.lobby.create_game(ann, "toypig", 3, None)
    site.lobby.join(gid, bob)
    site.lobby.join(gid, cid)
    site.chat.post_chat(gid, bob, "before the block")
    site.social.block(ann, "bob")
    posted = site.chat.post_chat(gid, bob, "after the block")
    assert ann.id not in (posted.to or []) and posted.skip == [ann.id]
    mine = site.chat.chat(gid, ann)
    assert [m.text for m in mine.messages] == [] and mine.hidden == 2
    assert [m.text for m in site.chat.chat(gid, cid).messages] == ["before the block", "after the block"]
    assert site.chat.post_chat(gid, ann, "to the table").to == sorted([bob.id, cid.id, ann.id])  # bob still reads ann
    assert [m.text for m in site.chat.chat(gid, bob).messages][-1] == "to the table"


def test_reports(site: Site) -> None:
    ann, bob, eve = users(site, "ann", "bob", "eve")
    gid = running_game(site, ann, bob)
    msg = site.chat.post_chat(gid, bob, "rude words").line
    rid = site.chat.report_chat(msg.id, ann, "abuse")
    with pytest.raises(Conflict) as exc:
        site.chat.report_chat(msg.id, ann, "spam")
    assert exc.value.params["code_key"] == "already_reported"
    with pytest.raises(BadRequest):
        site.chat.report_chat(msg.id, bob, "abuse")  # one's own
    with pytest.raises(NotFound):
        site.chat.report_chat(msg.id, eve, "abuse")  # cannot see it: the same answer as for no message
    with pytest.raises(NotFound):
        site.chat.report_chat(msg.id + 1000, ann, "abuse")
    with pytest.raises(BadRequest):
        site.chat.report_chat(msg.id, ann, "bored")
    assert count(site, ChatReport) == 1
    queue = site.chat.chat_reports()
    assert [(r.id, r.reporter, r.author, r.text, r.reason, r.game, r.reports) for r in queue] == [
        (rid, "ann", "bob", "rude words", "abuse", "toypig", 1)]
    site.chat.resolve_report(rid)
    assert site.chat.chat_reports() == [] and len(site.chat.chat_reports(include_resolved=True)) == 1
    with pytest.raises(NotFound):
        site.chat.resolve_report(rid)


def test_ludothek_admin_reports_lists_and_resolves(any_db: str, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from ludothek.cli import main as cli_main

    site = new_site(any_db)
    ann, bob, cid = users(site, "ann", "bob", "cid")
    gid = site.lobby.create_game(ann, "toypig", 3, None)
    site.lobby.join(gid, bob)
    site.lobby.join(gid, cid)
    msg = site.chat.post_chat(gid, bob, "you are <b>bad</b> \u202e!").line
    first = site.chat.report_chat(msg.id, ann, "abuse")
    site.chat.report_chat(msg.id, cid, "spam")
    site.engine.dispose()
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
