"""The end view's breakdown: stations, track, the contracts grouped by kind with how many and which,
the surveyor and train No.4."""

from __future__ import annotations

from ludothek.games.snowdonia.views import breakdown

from .helpers import new


def test_breakdown_lists_each_contract_and_adds_up() -> None:
    st = new(3)  # the position of test_final_score_hand_computed
    si = st.lay.station_index("hebron")
    st.sites[si]["build"][0] = 0
    st.sites[si]["dig"][0]["owner"] = 0
    st.sites[1]["build"][1] = 0
    st.tracks[0].update(laid=True, owner=0)
    st.tracks[5].update(laid=True, owner=0)
    st.players[0].update(surveyor=st.lay.station_index("halfway"), train=4, rubble=5, coal=2, used=[3, 24],
                         unused=[11, 27])
    mine = next(b for b in breakdown(st) if b["seat"] == 0)
    parts = {p["part"]: p["points"] for p in mine["parts"]}
    # #3 needs stations, #11 rubble, #24 track, #27 pays for coal: one line per kind, in a fixed order.
    assert list(parts) == ["stations", "track", "contracts", "contracts:stations", "contracts:rubble",
                           "contracts:track", "contracts:coal", "surveyor", "train"]
    assert parts == {"stations": 16, "track": 5, "contracts": None, "contracts:stations": 6, "contracts:rubble": 5,
                     "contracts:track": 4, "contracts:coal": 4, "surveyor": 7, "train": 9}
    assert sum(v for v in parts.values() if v is not None) == mine["total"] == 56
    lines = {p["part"]: p for p in mine["parts"]}
    assert lines["contracts"]["detail"] == {"de": "4 Aufträge: #3, #11, #24, #27", "en": "4 contracts: #3, #11, #24, #27"}
    assert lines["contracts:track"]["label"] == {"de": "Aufträge: Gleise", "en": "contracts: track"}
    assert lines["train"]["label"] == {"de": "Lok Nr. 4", "en": "train No.4"}
    # Another seat without contracts gets the same contract lines, at 0, and "none".
    other = next(b for b in breakdown(st) if b["seat"] == 1)
    assert [p["part"] for p in other["parts"]] == ["stations", "track", "contracts", "contracts:stations",
                                                  "contracts:rubble", "contracts:track", "contracts:coal", "surveyor"]
    assert {p["part"]: p["points"] for p in other["parts"]}["contracts:rubble"] == 0
    assert {p["part"]: p["detail"] for p in other["parts"]}["contracts"] == {"de": "keiner", "en": "none"}
    assert st.view(0)["breakdown"] is None  # only at the end


def test_one_contract_is_singular() -> None:
    st = new(2)
    st.players[0].update(rubble=4, unused=[11])
    mine = next(b for b in breakdown(st) if b["seat"] == 0)
    lines = {p["part"]: p for p in mine["parts"]}
    assert lines["contracts"]["detail"] == {"de": "1 Auftrag: #11", "en": "1 contract: #11"}
    assert [p["part"] for p in mine["parts"] if p["part"].startswith("contracts:")] == ["contracts:rubble"]


def test_the_table_of_the_portal_keeps_the_groups_together() -> None:
    """Rendered as the portal's table: one row per group, in the same order for every player."""
    from ludothek.portal.gameview import breakdown_table

    st = new(3)
    st.players[0].update(rubble=4, unused=[11])
    st.players[2].update(rubble=0, coal=1, unused=[27])
    for lang, rows in (("de", ["Bahnhöfe", "Gleise", "Aufträge erfüllt", "Aufträge: Geröll", "Aufträge: Kohle", "Vermesser"]),
                       ("en", ["stations", "track", "contracts fulfilled", "contracts: rubble", "contracts: coal", "surveyor"])):
        table = breakdown_table(breakdown(st), lang)
        assert table is not None
        assert [r["label"] for r in table["rows"]] == rows
