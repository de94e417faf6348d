"""The end view's breakdown: stations, track, each contract fulfilled, the surveyor and train No.4."""

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
    assert parts == {"stations": 16, "track": 5, "contract:3": 6, "contract:11": 5, "contract:24": 4,
                     "contract:27": 4, "surveyor": 7, "train": 9}
    assert sum(parts.values()) == mine["total"] == 56
    labels = {p["part"]: p["label"] for p in mine["parts"]}
    assert labels["contract:24"] == {"de": "Auftrag #24", "en": "contract #24"}
    assert labels["train"] == {"de": "Lok Nr. 4", "en": "train No.4"}
    other = next(b for b in breakdown(st) if b["seat"] == 1)
    assert [p["part"] for p in other["parts"]] == ["stations", "track", "surveyor"]
    assert st.view(0)["breakdown"] is None  # only at the end
