"""The new-game form as it comes (issue 29): sent untouched it creates the usual game of every kind, for
two or more players; a combination of options that does not go together is refused in words, never with
option syntax such as ``mode=solo``."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from ludothek import engine as eng
from tests.portal.conftest import api_user, page_login

GAMES = ["machikoro", "rolltheages", "snowdonia", "carpediem"]


class FormValues(HTMLParser):
    """What a browser sends for the new-game form as it is: hidden inputs, each select's chosen option,
    text inputs' values (a browser without scripts sends every seat row)."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}
        self._select: str | None = None
        self._first: str | None = None
        self._in_form = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form" and a.get("id") == "new-game-form":
            self._in_form = True
        if not self._in_form:
            return
        if tag == "input" and a.get("name") and a.get("type") not in ("submit", "button"):
            self.values[str(a["name"])] = a.get("value") or ""
        elif tag == "select":
            self._select, self._first = a.get("name"), None
        elif tag == "option" and self._select:
            value = a.get("value") or ""
            if self._first is None:
                self._first = value
                self.values.setdefault(self._select, value)  # the first option, unless one is selected
            if "selected" in a:
                self.values[self._select] = value

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None
        elif tag == "form":
            self._in_form = False


def untouched_form(client: TestClient, game: str) -> dict[str, str]:
    parser = FormValues()
    parser.feed(client.get(f"/new?game={game}").text)
    return parser.values


@pytest.mark.parametrize("game", GAMES)
def test_the_untouched_form_creates_the_usual_game(client: TestClient, game: str) -> None:
    page_login(client, f"newbie_{game}"[:20])
    values = untouched_form(client, game)
    usual = eng.load(game).usual_players()
    assert usual >= 2 and values["players"] == str(usual)
    r = client.post("/new", data=values, follow_redirects=False)
    assert r.status_code == 303, r.text
    gid = int(r.headers["location"].rsplit("/", 1)[1])
    g = client.get(f"/api/games/{gid}").json()
    assert g["game"] == game and g["num_players"] == usual
    assert g["options"].get("mode", "normal") != "solo"  # no solo game nobody asked for


def test_options_that_do_not_go_together_are_refused_in_words(client: TestClient) -> None:
    page_login(client, "worded")
    values = untouched_form(client, "rolltheages")
    for players, mode, english in (("1", "normal", "Choose the solo game as the mode"),
                                   ("3", "solo", "The solo game is played alone")):
        r = client.post("/new", data={**values, "players": players, "opt_mode": mode})
        assert r.status_code == 400
        assert english in r.text
        assert "mode=" not in r.text and "=solo" not in r.text
    r = client.post("/new", data={**values, "players": "1", "opt_mode": "solo", "opt_trade": "on"})
    assert r.status_code == 400 and "cannot be played solo" in r.text
    snow = untouched_form(client, "snowdonia")
    r = client.post("/new", data={**snow, "players": "1"}, follow_redirects=False)
    assert r.status_code == 303  # Snowdonia alone, chosen on purpose: a solo game


def test_the_refusal_is_worded_in_german_and_the_api_keeps_its_codes(client: TestClient) -> None:
    csrf = page_login(client, "deutsch")
    assert client.post("/lang", data={"csrf": csrf, "lang": "de", "next": "/"}, follow_redirects=False).status_code == 303
    values = untouched_form(client, "rolltheages")
    r = client.post("/new", data={**values, "players": "1", "opt_mode": "normal"})
    assert r.status_code == 400
    assert "Allein spielen? Wähle als Spielart das Solospiel." in r.text and "mode=" not in r.text
    h = api_user(client, "machine")
    r = client.post("/api/games", json={"game": "rolltheages", "players": 1}, headers=h)
    assert r.status_code == 400 and "mode=solo" in r.json()["detail"]  # programs keep the option syntax
