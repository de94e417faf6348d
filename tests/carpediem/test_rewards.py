"""Every completion reward, and the fountain cards as secret chance outcomes."""

from __future__ import annotations

from ludothek.games.carpediem.components import Goal
from ludothek.games.carpediem.rules import CarpeDiemState

from .helpers import build, comp_with, new_game, put, use_comp

TILES = [
    {"id": "TMK", "parts": [{"kind": "market"}]},
    {"id": "TBK", "parts": [{"kind": "bakery"}]},
    {"id": "TFN", "parts": [{"kind": "fountain"}]},
    {"id": "TPS", "parts": [{"kind": "pond", "at": ["Se"]}]},
    {"id": "TPN", "parts": [{"kind": "pond", "at": ["Ne"]}]},
    {"id": "TPW", "parts": [{"kind": "pond", "at": ["Ws"]}]},
    {"id": "TPQ", "parts": [{"kind": "pond", "at": ["Es", "Se"]}]},  # quarter in the south-east corner
    {"id": "TVE", "parts": [{"kind": "villa", "at": ["E"], "chimneys": 3}]},
    {"id": "TVW", "parts": [{"kind": "villa", "at": ["W"], "chimneys": 4}]},
    *[{"id": f"T{k}", "parts": [{"kind": k, "at": ["S"]}]} for k in ("administrator", "merchant", "baker", "craftsman")],
]
FRAMES = {"TF1": [Goal(1, "pond", 5), Goal(3, "villa", 3)]}


def game() -> CarpeDiemState:
    state = new_game(2)  # seat 0: board I, shovel c3
    use_comp(state, comp_with(TILES, FRAMES))
    return state


def test_landscape_of_two_gives_one_ware() -> None:
    state = game()
    put(state, 0, "TPS", "c3")
    build(state, 0, "TPN", "c4")
    assert state.players[0].wares["fish"] == 1
    assert [f.kind for f in state.players[0].district.features] == ["pond"]


def test_landscape_of_three_gives_two_wares() -> None:
    state = game()
    put(state, 0, "TPQ", "c3")
    put(state, 0, "TPW", "d3")
    build(state, 0, "TPN", "c4")
    assert state.players[0].wares["fish"] == 2


def test_landscape_of_four_gives_three_wares() -> None:
    state = game()
    put(state, 0, "TPQ", "c3", 0)
    put(state, 0, "TPQ", "d3", 90)
    put(state, 0, "TPQ", "c4", 270)
    assert state.players[0].wares["fish"] == 0  # still open towards d4
    build(state, 0, "TPQ", "d4", 180)
    assert state.players[0].wares["fish"] == 3
    assert state.players[0].district.features[0].cells == [14, 15, 20, 21]


def dwelling(state: CarpeDiemState, kind: str) -> None:
    put(state, 0, f"T{kind}", "c3", 0)
    build(state, 0, f"T{kind}", "c4", 180)


def test_administrator_dwelling_two_steps() -> None:
    state = game()
    dwelling(state, "administrator")
    assert state.players[0].steps == 2
    assert state.players[0].district.count("administrator") == 1


def test_merchant_dwelling_seed_example() -> None:
    """Nils: 2 fish, 1 chicken and 1 grape go back; he takes 5 coins."""
    state = game()
    state.players[0].wares.update(fish=2, chicken=1, grapes=1)
    dwelling(state, "merchant")
    assert state.players[0].coins == 5
    assert sum(state.players[0].wares.values()) == 0


def test_merchant_dwelling_without_wares_gives_one_coin() -> None:
    state = game()
    dwelling(state, "merchant")
    assert state.players[0].coins == 1


def test_baker_dwelling_two_bread() -> None:
    state = game()
    dwelling(state, "baker")
    assert state.players[0].bread == 2


def test_craftsman_dwelling_builds_a_seal_tile_at_once_and_chains() -> None:
    state = game()
    state.seal = ["Tcraftsman", "TMK"] + [None] * 9
    put(state, 0, "Tcraftsman", "c3", 0)
    put(state, 0, "Tcraftsman", "d3", 270)  # an open craftsman half facing e3
    build(state, 0, "Tcraftsman", "c4", 180)
    assert state.stage == "seal" and state.actor == 0
    assert sorted(state.legal_actions()) == ["seal:TMK", "seal:Tcraftsman"]
    state.apply_action("seal:Tcraftsman")
    assert state.stage == "sealbuild" and "store" not in state.legal_actions()
    state.apply_action("build:e3:90")  # completes the second craftsman dwelling: another seal tile
    assert state.players[0].district.count("craftsman") == 2
    assert state.legal_actions() == ["seal:TMK"]
    state.apply_action("seal:TMK")
    state.apply_action(state.legal_actions()[0])
    assert state.players[0].coins == 1  # the market's coin
    assert state.seal[:2] == [None, None]
    assert state.stage == "move" and state.actor == 1


def test_craftsman_reward_lapses_when_no_seal_tile_fits() -> None:
    state = game()
    state.seal = [None] * 11
    dwelling(state, "craftsman")
    assert state.stage == "move" and state.actor == 1


def test_market_coin_and_bakery_bread() -> None:
    state = game()
    build(state, 0, "TMK", "c3")
    assert state.players[0].coins == 1
    build(state, 1, "TBK", "d3")  # seat 1's board II: shovel d3
    assert state.players[1].bread == 1
    assert state.players[0].district.count("market") == 1


def test_fountain_look_at_two_keep_one_then_keep_both() -> None:
    state = game()
    build(state, 0, "TFN", "c3")
    assert state.stage == "fdraw" and state.current_player() == -1
    assert state._visibility("fountain:garden") == frozenset({0})
    state.apply_action("fountain:garden")
    state.apply_action("fountain:market")
    assert state.legal_actions() == ["return:new1", "return:new2"]
    assert state.view(0)["looking_at"] == ["garden", "market"]
    assert "looking_at" not in state.view(1)
    state.apply_action("return:new2", seat=0)
    assert state.players[0].fountains == ["garden"]
    assert state.fbottom == [("market", 0)]
    assert [e.action for e in state.history(1)][-3:-1] == ["?", "?"]
    assert "fountains" in state.view(0)["players"][0] and "fountains" not in state.view(1)["players"][0]
    # a later fountain: keep both new cards and give back one kept earlier
    build(state, 0, "TFN", "c4")
    state.apply_action("fountain:pond")
    state.apply_action("fountain:villa")
    assert state.legal_actions() == ["return:new1", "return:new2", "return:old1"]
    state.apply_action("return:old1")
    assert state.players[0].fountains == ["pond", "villa"]
    assert state.fbottom == [("market", 0), ("garden", 0)]


def test_completed_villa_scores_at_once_and_frame_goal() -> None:
    state = game()
    state.players[0].district.frame = ["TF1", "F02", "F03", "F04"]
    state.players[0].district.goals_done = []
    put(state, 0, "TVE", "c3")
    before = state.running_total(0)
    build(state, 0, "TVW", "d3")
    d = state.players[0].district
    assert [(f.kind, f.chimneys) for f in d.features] == [("villa", 7)]
    assert d.villa_vp() == state.comp.villa_vp(7)
    # the villa lies on column c, the line of TF1's villa goal (position 3 on the top part)
    assert (0, 1) in d.goals_done and (0, 0) not in d.goals_done
    assert d.frame_vp() >= 3
    assert state.running_total(0) == before + state.comp.villa_vp(7) + d.frame_vp()


def test_frame_goal_needs_a_completed_feature_on_its_line() -> None:
    state = game()
    d = state.players[0].district
    d.frame = ["TF1", "F02", "F03", "F04"]
    d.goals_done = []
    put(state, 0, "TPS", "c3")
    build(state, 0, "TPN", "c4")  # a completed pond on column c, but the pond goal's line is column a
    assert (0, 0) not in d.goals_done


def test_one_tile_completing_a_landscape_and_a_merchant_converts_the_new_wares() -> None:
    """Rewards go landscapes first, then dwellings: the merchant turns the fresh fish into a coin."""
    state = game()
    comp = comp_with([*TILES, {"id": "TPM", "parts": [{"kind": "pond", "at": ["Ne"]}, {"kind": "merchant", "at": ["S"]}]},
                      {"id": "TMN", "parts": [{"kind": "merchant", "at": ["N"]}]}], FRAMES)
    use_comp(state, comp)
    put(state, 0, "TPS", "c3")
    for cell in ("b3", "b4", "b5"):
        put(state, 0, "TMK", cell)
    put(state, 0, "TMN", "c5")
    build(state, 0, "TPM", "c4")
    p = state.players[0]
    assert sorted(f.kind for f in p.district.features if f.kind != "market") == ["merchant", "pond"]
    assert p.wares["fish"] == 0 and p.coins == 2


def test_fountain_pile_runs_into_the_cards_put_back() -> None:
    state = game()
    state.fdeck = dict.fromkeys(state.fdeck, 0)
    state.fdeck["garden"] = 1
    state.fbottom = [("pond", 1), ("villa", 0)]
    build(state, 0, "TFN", "c3")
    assert state.legal_actions() == ["fountain:garden"]
    state.apply_action("fountain:garden")
    assert state.stage == "freturn" and state.fdrawn == ["garden", "pond"]  # the next card comes from below
    state.apply_action("return:new1")
    assert state.fbottom == [("villa", 0), ("garden", 0)]
    state.fbottom = [("villa", 0)]
    build(state, 0, "TFN", "c4")
    assert state.legal_actions() == ["keep"]
    state.apply_action("keep")
    assert state.players[0].fountains == ["pond", "villa"]
    build(state, 0, "TFN", "c5")  # the pile is empty: nothing to look at
    assert state.stage == "move"
