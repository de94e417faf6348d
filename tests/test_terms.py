"""One German word per thing in each game (issue 29): a retired term may not come back.

Roll Through the Ages says "Errungenschaft" for what the board once called "Entwicklung", "Schädel"
for the rules page's "Totenkopf" and "Minuspunkt" for its "Katastrophenpunkt" (the seed's words); Carpe Diem calls the 6×6 board "Bau-Tableau" and the rondel "Rondell", never "Bauplan" (which
named both).  The rulings and their reasons are in ``docs/games/<game>.md`` ("German terms").  The
check reads every file of the game that holds German text (rules page, board templates, Python texts,
data) and the German texts the game renders over a random game (log, terminal view, breakdown).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ludothek
from tests.test_plurals import texts_of_a_game

GAMES = Path(ludothek.__file__).parent / "games"

#: game -> (retired German word, the word to use instead)
RETIRED: dict[str, list[tuple[str, str]]] = {
    "rolltheages": [("Entwicklung", "Errungenschaft"), ("Totenk", "Schädel"), ("Katastrophenpunkt", "Minuspunkt")],
    "carpediem": [("Bauplan", "Bau-Tableau (the 6×6 board) or Rondell (the rondel)")],
}


def german_sources(game: str) -> list[Path]:
    """The files of ``game`` that may hold German text (the English rules page aside)."""
    return [p for p in sorted((GAMES / game).rglob("*")) if p.is_file()
            and p.suffix in (".py", ".html", ".md", ".json", ".js") and p.name != "en.md"]


@pytest.mark.parametrize("game", list(RETIRED))
def test_no_retired_german_term_in_the_sources(game: str) -> None:
    found = []
    for path in german_sources(game):
        text = path.read_text(encoding="utf-8")
        for wrong, right in RETIRED[game]:
            for m in re.finditer(wrong, text, re.IGNORECASE):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{path.relative_to(GAMES)}:{line}: {wrong!r} (use {right})")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("game", list(RETIRED))
def test_no_retired_german_term_in_what_the_game_writes(game: str) -> None:
    found = set()
    for line in texts_of_a_game(game, 2, {}, seed=3, lang="de"):
        for wrong, _ in RETIRED[game]:
            if wrong.lower() in line.lower():
                found.add(line[:200])
    assert not found, found


def test_the_right_terms_are_there() -> None:
    """The rulings are in use, not just the old words gone."""
    rtta = (GAMES / "rolltheages" / "web" / "rolltheages.html").read_text(encoding="utf-8")
    assert '"Errungenschaften" if de' in rtta
    assert "Errungenschaft" in (GAMES / "rolltheages" / "rulebook" / "de.md").read_text(encoding="utf-8")
    cd_board = (GAMES / "carpediem" / "web" / "carpediem.html").read_text(encoding="utf-8")
    assert '"Rondell" if de' in cd_board
    assert "Bau-Tableau" in (GAMES / "carpediem" / "rulebook" / "de.md").read_text(encoding="utf-8")
