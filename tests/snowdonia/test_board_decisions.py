"""Every decision is offered on the board itself, not only in the sentence list (issue 29).

The board partial is rendered for the decisions that used to exist only as sentences: the surveyor's
start end and the outside surveyor (Blaenau Ffestiniog), the pub worker, a build that can only be paid
with substitutes when it is the only build (no picker then), a train bought with iron, and a decision
with a single way.  The sentence list is always folded into "all actions".
"""

from __future__ import annotations

import html as htmllib
import json
import re
from typing import Any

from .test_board_partial import STATES, render
from .test_prompts import REACHED


def offered(html: str) -> set[str]:
    """Actions clickable on the board outside the folded sentence list."""
    outside = re.sub(r'<details class="all-actions">.*?</details>', "", html, flags=re.S)
    return {htmllib.unescape(a) for a in re.findall(r'data-action="([^"]+)"', outside)}


def test_the_ends_are_chosen_on_the_route_and_by_name() -> None:
    for kind in ("end", "outside"):
        st: Any = REACHED["blaenau_ffestiniog"][kind]
        legal = st.legal_actions()
        for lang in ("de", "en"):
            html = render(st, st.current_player(), lang)
            assert set(legal) <= offered(html), kind
            route = html.split('id="sd-route-svg"')[1].split("</svg>")[0]
            for a in legal:
                assert f'class="sd-snode  sd-can" data-action="{a}"' in route, a
            quick = html.split('id="sd-quick"')[1].split("</div>")[0]
            assert "Blaenau Ffestiniog" in quick or "Porthmadog Harbour" in quick
            assert '<details class="all-actions">' in html


def test_the_pub_worker_is_two_short_buttons() -> None:
    st = STATES.get("pub")
    if st is None:
        return
    for lang, words in (("de", ("Ja, 1 Kohle zahlen", "Nein")), ("en", ("yes, pay 1 coal", "no"))):
        html = render(st, st.current_player(), lang)
        assert offered(html) >= {"pub:hire", "pub:no"}
        quick = html.split('id="sd-quick"')[1].split("</div>")[0]
        assert all(w in quick for w in words)


def test_a_single_build_with_substitutes_is_clicked_on_its_site() -> None:
    st: Any = STATES["build"]
    site = next(a for a in st.legal_actions() if a.startswith("build:")).split("+")[0]
    only = [site + "+rubble"]
    html = render(st, st.current_player(), "en", legal=only)
    route = html.split('id="sd-route-svg"')[1].split("</svg>")[0]
    assert f'data-action="{only[0]}"' in route
    assert offered(html) == set(only)
    # with a picker (two ways) the site picks itself in the picker instead
    two = [site + "+rubble", site + "+rubble+rubble"]
    route = render(st, st.current_player(), "en", legal=two).split('id="sd-route-svg"')[1].split("</svg>")[0]
    assert f'data-pick-base="{site}"' in route


def test_a_single_train_with_iron_is_clicked_on_the_train() -> None:
    st: Any = STATES["build"]
    view = st.view(None)
    if not view["trains"]:
        return
    n = view["trains"][0]["number"]
    html = render(st, st.current_player(), "en", legal=[f"train:{n}+iron"])
    assert f"train:{n}+iron" in offered(html)


def test_a_decision_with_one_way_has_a_short_button() -> None:
    st: Any = STATES["take"]
    one = [st.legal_actions()[0]]
    html = render(st, st.current_player(), "de", legal=one)
    assert offered(html) == set(one)
    assert 'id="sd-quick"' in html


def test_every_decision_kind_is_offered_on_the_board() -> None:
    """Each kind reached in random games on every map: every legal action is clickable on the board
    or an option of one of its pickers."""
    seen = set()
    for states in (STATES, *REACHED.values()):
        for kind, st in states.items():
            html = render(st, st.current_player(), "en")
            shown = offered(html)
            for form in re.findall(r"data-picker='([^']+)'", html):
                shown |= {o["action"] for o in json.loads(htmllib.unescape(form))["options"]}
            assert set(st.legal_actions()) <= shown, (kind, sorted(set(st.legal_actions()) - shown)[:5])
            seen.add(kind)
    assert {"place", "pub", "window", "take", "work", "build", "contract", "end", "outside"} <= seen, seen
