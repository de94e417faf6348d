"""The HTML pages: accounts, CSRF, languages, lobby forms and the game page."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from ludothek.portal.sessions import COOKIE
from ludothek.texts import LANGS, catalogs, t
from tests.portal.conftest import csrf_of, page_login


def test_register_logout_login(client: TestClient) -> None:
    token = page_login(client, "alice")
    cookie = client.cookies.get(COOKIE)
    assert cookie
    r = client.get("/")
    assert "alice" in r.text and "Running games" in r.text
    assert client.post("/logout", data={"csrf": token}, follow_redirects=False).status_code == 303
    assert "alice" not in client.get("/").text
    page_login(client, "alice", register=False)
    assert "alice" in client.get("/").text


def test_session_cookie_flags(client: TestClient) -> None:
    r = client.get("/login")
    header = r.headers["set-cookie"].lower()
    assert "httponly" in header and "samesite=lax" in header


def test_forms_refuse_missing_or_wrong_csrf(client: TestClient) -> None:
    csrf_of(client)
    r = client.post("/register", data={"csrf": "forged", "name": "mallory", "password": "password-x"})
    assert r.status_code == 403 and "CSRF" in r.text
    r = client.post("/guest", data={"csrf": ""})
    assert r.status_code in (403, 422)
    other = TestClient(client.app)
    token = csrf_of(other)  # a valid token, but for another session
    r = client.post("/register", data={"csrf": token, "name": "mallory", "password": "password-x"})
    assert r.status_code == 403


def test_bad_login_is_refused_then_slowed_down(client: TestClient) -> None:
    page_login(client, "alice")
    client.cookies.clear()
    token = csrf_of(client)
    for _ in range(5):  # five tries per name and address in 15 minutes
        r = client.post("/login", data={"csrf": token, "name": "alice", "password": "wrong-wrong"})
        assert r.status_code == 401 and "Wrong user name or password" in r.text
    r = client.post("/login", data={"csrf": token, "name": "alice", "password": "password-alice"})
    assert r.status_code == 429 and "Retry-After" in r.headers


def test_guest_and_conversion(client: TestClient) -> None:
    token = csrf_of(client)
    assert client.post("/guest", data={"csrf": token}, follow_redirects=False).status_code == 303
    token = csrf_of(client)
    page = client.get("/account").text
    assert "Guest account" in page
    r = client.post("/account/convert", data={"csrf": token, "name": "gustav", "password": "password-gustav"},
                    follow_redirects=False)
    assert r.status_code == 303
    assert "gustav" in client.get("/account").text
    assert "Guest account" not in client.get("/account").text


def test_language_switch_on_every_page(client: TestClient) -> None:
    token = page_login(client, "alice")
    for path in ("/", "/new", "/account"):
        assert 'action="/lang"' in client.get(path).text
    r = client.post("/lang", data={"csrf": token, "lang": "de", "next": "/new"}, follow_redirects=False)
    assert r.headers["location"] == "/new"
    page = client.get("/new").text
    assert t("new_game", "de") in page and 'lang="de"' in page
    assert "Spielende" in page or "Länge" in page  # option labels come from the game, in German


def test_every_text_has_both_languages() -> None:
    keys = {lang: catalogs.keys(lang) for lang in LANGS}
    for key in set.union(*keys.values()):
        assert {lang for lang in LANGS if key in keys[lang]} == {"de", "en"}, key


def test_create_join_and_play_by_form(client: TestClient) -> None:
    token = page_login(client, "alice")
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "2", "opt_length": "short",
                                  "seat1": "open"}, follow_redirects=False)
    assert r.status_code == 303
    url = r.headers["location"]
    bob = TestClient(client.app)
    bob_token = page_login(bob, "bob")
    assert "Join" in bob.get(url).text
    assert bob.post(f"{url}/join", data={"csrf": bob_token}, follow_redirects=False).status_code == 303
    pages = {name: (c, tok, c.get(url).text) for name, c, tok in (("a", client, token), ("b", bob, bob_token))}
    c, tok, page = next(v for v in pages.values() if 'data-my-turn="yes"' in v[2])
    seq = re.search(r'data-seq="(\d+)"', page).group(1)  # type: ignore[union-attr]
    assert 'data-action="hold"' in page and "Your legal actions" in page
    headers = {"HX-Request": "true"}
    r = c.post(f"{url}/act", data={"csrf": tok, "action": "hold", "seq": seq}, headers=headers)
    assert r.status_code == 200 and 'id="game"' in r.text
    # the double click: the same move against the same number is refused, the board is fresh again
    r = c.post(f"{url}/act", data={"csrf": tok, "action": "hold", "seq": seq}, headers=headers)
    assert r.status_code == 409 and "too late" in r.text and 'id="game"' in r.text
    r = c.post(f"{url}/act", data={"csrf": "nope", "action": "hold", "seq": seq}, headers=headers)
    assert r.status_code == 403


def test_bot_game_from_the_form_and_next_game(client: TestClient) -> None:
    token = page_login(client, "alice")
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "2", "seat1": "bot"},
                    follow_redirects=False)
    url = r.headers["location"]
    page = client.get(url).text
    assert "bot-tag" in page
    r = client.get("/next", follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] in (url, "/?waiting=none")


def test_unknown_game_page_and_spectator(client: TestClient) -> None:
    assert client.get("/games/4242").status_code == 404
    token = page_login(client, "alice")
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "2", "seat1": "open"},
                    follow_redirects=False)
    url = r.headers["location"]
    bob = TestClient(client.app)
    bob.post(f"{url}/join", data={"csrf": page_login(bob, "bob")})
    viewer = TestClient(client.app)
    page = viewer.get(url).text
    assert "You are watching" in page
    assert "data-action" not in page.split('id="legal"')[1].split("</section>")[0]


def _seat_table(page: str) -> str:
    return page.split('id="seat-table"')[1].split("</table>")[0]


def test_new_game_form_reads_only_the_chosen_seats(client: TestClient) -> None:
    token = page_login(client, "alice")
    form = client.get("/new?game=toypig").text
    assert 'name="seat2"' in form and "(with 3 or more players)" in form  # every row, for browsers without JS
    # 2 players: the rows of seat 3 are sent too (no JS), but ignored, even if they make no sense
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "2", "seat1": "bot",
                                  "seat2": "invite", "seat2_name": "nobody"}, follow_redirects=False)
    assert r.status_code == 303
    page = client.get(r.headers["location"]).text
    # started at once (the bot may even have won already): two seats, no invitation for "nobody"
    assert 'data-status="open"' not in page and page.count('class="player ') == 2


def test_new_game_form_refusals_keep_the_choices(client: TestClient) -> None:
    token = page_login(client, "alice")
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "7", "seat1": "bot"})
    assert r.status_code == 400 and "played by 2 to 3 players" in r.text
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "3", "seat1": "bot",
                                  "seat2": "invite", "seat2_name": "", "opt_length": "long"})
    assert r.status_code == 400 and "Seat 3: enter the name" in r.text
    assert '<option value="3" selected>' in r.text and '<option value="long" selected>' in r.text
    assert '<option value="invite" selected>' in r.text
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "2", "seat1": "invite",
                                  "seat1_name": "nobody"})
    assert r.status_code == 404 and "no user called “nobody”" in r.text
    assert client.get("/").text.count('class="game-row') == 0  # nothing was created


def test_waiting_game_shows_every_seat_with_its_buttons(client: TestClient) -> None:
    page_login(client, "bob")  # exists, so alice can invite him
    client.cookies.clear()
    token = page_login(client, "alice")
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "3", "seat1": "invite",
                                  "seat1_name": "bob", "seat2": "open"}, follow_redirects=False)
    url = r.headers["location"]
    table = _seat_table(client.get(url).text)
    assert "alice" in table and "created the game" in table and "invited: bob" in table
    assert "Open invitation" in table and "/join" not in table  # the creator does not join again
    assert 'id="cancel-game"' in client.get(url).text

    bob = TestClient(client.app)
    bob_token = page_login(bob, "bob", register=False)
    table = _seat_table(bob.get(url).text)
    assert "Accept invitation" in table and "Decline" in table and table.count("/join") == 1
    assert "Accept invitation" in bob.get("/").text.split('id="open-games"')[1].split("</ul>")[0]
    assert 'id="cancel-game"' not in bob.get(url).text

    carol = TestClient(client.app)
    carol_token = page_login(carol, "carol")
    home = carol.get("/").text.split('id="open-games"')[1].split("</ul>")[0]
    assert url in home and "Join" in home  # the lobby lists the open invitation
    table = _seat_table(carol.get(url).text)
    assert table.count("/join") == 1 and "Accept invitation" not in table
    assert carol.post(f"{url}/join", data={"csrf": carol_token}, follow_redirects=False).status_code == 303
    table = _seat_table(carol.get(url).text)
    assert "carol" in table and 'id="leave"' in table and "/join" not in table

    visitor = TestClient(client.app)
    assert "Log in to join" not in _seat_table(visitor.get(url).text)  # no open seat left
    assert bob.post(f"{url}/join", data={"csrf": bob_token}, follow_redirects=False).status_code == 303
    assert 'data-status="running"' in bob.get(url).text


def test_waiting_game_with_a_bot_and_a_visitor(client: TestClient) -> None:
    token = page_login(client, "alice")
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "3", "seat1": "bot", "seat2": "open"},
                    follow_redirects=False)
    url = r.headers["location"]
    visitor = TestClient(client.app)
    table = _seat_table(visitor.get(url).text)
    assert "Bot 2" in table and "bot-tag" in table and "Log in to join" in table
    home = visitor.get("/").text
    assert url in home.split('id="open-games"')[1]  # visitors see the open invitations too


def test_log_lines_label_the_seats() -> None:
    from ludothek.portal.gameview import log_lines

    names = ["anna", "Bot 2"]
    log = [
        {"n": 1, "seat": "chance", "action": "die:3", "text": "anna starts."},
        {"n": 2, "seat": 0, "action": "build:x", "text": "anna builds X.", "undone": True},
        {"n": 3, "seat": 1, "action": "pass", "text": "Passes."},
    ]
    en = log_lines(log, names, "en")
    assert [(e["label"], e["text"], e["undone"]) for e in en] == [
        ("Chance", "anna starts.", False), (None, "anna builds X.", True), ("Bot 2", "Passes.", False)]
    assert log_lines(log, names, "de")[0]["label"] == "Zufall"


def test_game_page_log_uses_names(client: TestClient) -> None:
    token = page_login(client, "alice")
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "2", "seat1": "bot"},
                    follow_redirects=False)
    page = client.get(r.headers["location"]).text
    log = page.split('id="log"')[1].split("</ol>")[0]
    assert '<span class="who">Chance:</span>' in log and "Player 1" not in log


def test_finished_game_names_the_winner(client: TestClient) -> None:
    token = page_login(client, "alice")
    r = client.post("/new", data={"csrf": token, "game": "toypig", "players": "2", "seat1": "bot"},
                    follow_redirects=False)
    url = r.headers["location"]
    headers = {"HX-Request": "true"}
    for _ in range(400):
        page = client.get(url).text
        if 'data-status="finished"' in page:
            break
        if 'data-my-turn="yes"' in page:
            seq = re.search(r'data-seq="(\d+)"', page).group(1)  # type: ignore[union-attr]
            client.post(f"{url}/act", data={"csrf": token, "action": "hold", "seq": seq}, headers=headers)
    assert 'data-status="finished"' in page
    winner = page.split('id="winner"')[1].split("</p>")[0]
    assert "Winner:" in winner and ("alice" in winner or "Bot " in winner)  # seats are shuffled at the start
