"""The bots of every strength: legal moves everywhere, no peeking, the fallback chain, strategies found by game."""

from __future__ import annotations

import random
import time

import pytest

from ludothek import engine
from ludothek.bots import BOTS, Bot, RandomBot, make_bot, play_to_end
from ludothek.bots.fallback import SafeBot, safe_bot
from ludothek.bots.greedy import EasyBot, MediumBot
from ludothek.bots.ismcts import IsmctsBot
from ludothek.bots.strategy import GENERIC, strategy_for
from ludothek.engine import CHANCE, State, sample_chance
from ludothek.engine.registry import GAME_MODULES
from tests.engine.toygame import GAME as TOY

engine.register(TOY)

GAMES = [*GAME_MODULES, "toypig"]


def small_bots() -> dict[str, Bot]:
    """Every strength with budgets small enough for tests, and no clock (seed alone decides)."""
    return {
        "random": RandomBot(),
        "easy": EasyBot(),
        "medium": MediumBot(max_actions=12, samples=2),
        "hard": IsmctsBot(seconds=None, iterations=12, rollout_depth=4),
        # the root in rounds (common random numbers) in every game, not only where SEARCH asks for it
        "hard in rounds": IsmctsBot(seconds=None, iterations=24, rollout_depth=4, root_rounds=True),
    }


def positions(game_id: str, count: int, seed: int) -> list[State]:
    """Decision positions reached by random play from a seed (copies, taken along the way)."""
    rng = random.Random(seed)
    state = engine.load(game_id).new_state(2)
    found: list[State] = []
    steps = 0
    while not state.is_terminal() and len(found) < count:
        player = state.current_player()
        if player == CHANCE:
            state.apply_action(sample_chance(state, rng))
            continue
        if len(state.legal_actions()) > 1 and rng.random() < 0.25:
            found.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    return found


def hidden_copies(state: State) -> list[State]:
    """Copies of ``state`` with what its seat to move cannot see dealt afresh (a plain copy if nothing is
    hidden), each checked to show that seat the very same view."""
    seat = state.current_player()
    copies = [state.resample_hidden(seat, random.Random(k)) for k in range(2)]
    copies = [c for c in copies if c is not None] or [state.clone()]
    for c in copies:
        assert c.view(seat) == state.view(seat)
    return copies


def test_the_stable_names_exist() -> None:
    assert {"random", "easy", "medium", "hard"} <= set(BOTS)
    for name in ("easy", "medium", "hard"):
        assert make_bot(name).name == name
    with pytest.raises(KeyError, match="known"):
        make_bot("grandmaster")


@pytest.mark.parametrize("game_id", GAMES)
def test_every_bot_returns_a_legal_action(game_id: str) -> None:
    bots = small_bots()
    for seed in range(2):
        for state in positions(game_id, 3, seed):
            for name, bot in bots.items():
                before = state.snapshot()
                action = bot.choose(state, random.Random(seed))
                assert action in state.legal_actions(), (game_id, name, action)
                assert state.snapshot() == before, f"{name} changed the state it was shown"


@pytest.mark.parametrize("game_id", GAMES)
def test_no_bot_peeks(game_id: str) -> None:
    """Same seed, same own view: the same decision on the state and on re-dealt copies of its hidden parts."""
    bots = small_bots()
    checked = 0
    for state in positions(game_id, 4, 7):
        copies = hidden_copies(state)
        for name, bot in bots.items():
            expected = bot.choose(state, random.Random(11))
            for c in copies:
                assert bot.choose(c, random.Random(11)) == expected, (game_id, name)
                checked += 1
    assert checked


@pytest.mark.parametrize("game_id", GAMES)
def test_every_game_has_its_strategy(game_id: str) -> None:
    strategy = strategy_for(game_id)
    if game_id == "toypig":
        assert strategy is GENERIC  # a game without a strategy module still gets bots
    else:
        assert strategy is not GENERIC
    state = positions(game_id, 1, 3)[0]
    assert isinstance(strategy.evaluate(state, 0), float | int)


@pytest.mark.parametrize("game_id", ["machikoro", "rolltheages"])
def test_medium_beats_random_mostly(game_id: str) -> None:
    wins = 0.0
    for g in range(6):
        state = engine.load(game_id).new_state(2)
        me = g % 2
        bots: list[Bot] = [RandomBot(), RandomBot()]
        bots[me] = MediumBot()
        play_to_end(state, bots, random.Random(g))
        wins += state.returns()[me]
    assert wins >= 5


def test_hard_is_deterministic_without_a_clock() -> None:
    state = positions("machikoro", 2, 5)[-1]
    bot = IsmctsBot(seconds=None, iterations=30)
    assert bot.choose(state, random.Random(2)) == bot.choose(state, random.Random(2))


class Raising:
    name = "raising"
    budget = 0.05

    def choose(self, state: State, rng: random.Random) -> str:
        raise RuntimeError("boom")


class Slow:
    name = "slow"
    budget = 0.01

    def choose(self, state: State, rng: random.Random) -> str:
        time.sleep(0.5)
        return state.legal_actions()[0]


class Illegal:
    name = "illegal"
    budget = 0.05

    def choose(self, state: State, rng: random.Random) -> str:
        return "no such action"


@pytest.mark.parametrize("broken", [Raising(), Slow(), Illegal()])
def test_a_failing_bot_falls_back_to_medium_and_is_logged(broken: Bot, caplog: pytest.LogCaptureFixture) -> None:
    state = positions("machikoro", 1, 1)[0]
    bot = SafeBot([broken, MediumBot()], budgets=[broken.budget, 5.0])  # type: ignore[attr-defined]
    action = bot.choose(state, random.Random(1))
    assert action in state.legal_actions()
    assert bot.decided_by == "medium"
    assert "falling back" in caplog.text


def test_random_is_the_last_resort() -> None:
    state = positions("rolltheages", 1, 1)[0]
    bot = SafeBot([Raising(), Illegal()])
    assert bot.choose(state, random.Random(1)) in state.legal_actions()
    assert bot.decided_by == "random"


def test_safe_bot_by_name_plays_a_whole_game() -> None:
    state = engine.load("toypig").new_state(2)
    play_to_end(state, [safe_bot("easy"), safe_bot("medium")], random.Random(3))
    assert state.is_terminal()


def test_hard_stops_early_once_the_best_action_cannot_be_overtaken() -> None:
    from ludothek.bots.ismcts import _Child, _Node

    root = _Node()
    for action, visits in (("a", 50), ("b", 20), ("c", 5)):
        root.children[action] = _Child()
        root.children[action].visits = visits
    assert IsmctsBot._decided(root, ["a", "b", "c"], left=29)
    assert not IsmctsBot._decided(root, ["a", "b", "c"], left=30)
    assert not IsmctsBot._decided(root, ["a", "b"], left=30)


def test_hard_early_stop_keeps_the_seed_deterministic_and_saves_iterations() -> None:
    state = positions("machikoro", 3, 4)[-1]
    bot = IsmctsBot(seconds=None, iterations=400)
    first = bot.choose(state, random.Random(5))
    ran = bot.last_iterations
    assert bot.choose(state, random.Random(5)) == first and bot.last_iterations == ran
    assert ran <= 400


def test_hard_takes_each_games_search_constants() -> None:
    mk = strategy_for("machikoro").search
    rtta = strategy_for("rolltheages").search
    assert strategy_for("machikoro").search_evaluate is not None
    assert rtta.par == 30.0 and rtta.lead_players == (2,) and mk.par is None
    bot = IsmctsBot(seconds=None, iterations=10, exploration=1.5)
    settings = bot.settings(strategy_for("machikoro"))
    assert settings.exploration == 1.5 and settings.scale == mk.scale  # explicit choices win, the rest is the game's
    assert GENERIC.search.rollout_depth > 0
    assert strategy_for("carpediem").search.prior > 0 and GENERIC.search.prior == 0


def test_hard_plays_at_each_games_measured_iteration_budget() -> None:
    """The portal's `hard` is the bot the arena measured: the game's budget unless told otherwise."""
    budgets = {"machikoro": 2000, "rolltheages": 200, "carpediem": 100, "snowdonia": 200}
    for game_id, budget in budgets.items():
        assert strategy_for(game_id).search.iterations == budget
        assert IsmctsBot().settings(strategy_for(game_id)).iterations == budget
        assert IsmctsBot(iterations=7).settings(strategy_for(game_id)).iterations == 7
    for game_id in ("rolltheages", "carpediem"):  # the rounds spend the game's budget, no more
        bot = IsmctsBot(seconds=None, early_stop=False)
        for state in positions(game_id, 2, 3):
            assert bot.choose(state, random.Random(2)) in state.legal_actions()
            assert bot.last_iterations <= budgets[game_id]
    bot = IsmctsBot(seconds=None, early_stop=False, root_rounds=False)
    state = positions("carpediem", 1, 5)[0]
    bot.choose(state, random.Random(2))
    assert bot.last_iterations == 100


def test_a_policy_prior_makes_a_tiny_search_follow_the_policy() -> None:
    """With a prior far above the iterations, hard plays the policy's move (seen on a fresh deal, never peeking)."""
    from ludothek.bots.greedy import determinize

    strategy = strategy_for("carpediem")
    assert strategy.policy is not None
    for state in positions("carpediem", 3, 6):
        seat = state.current_player()
        rng = random.Random(4)
        expected = strategy.policy(determinize(state, seat, rng), rng)
        bot = IsmctsBot(seconds=None, iterations=3, root_rounds=False)  # the plain search's prior
        assert bot.choose(state, random.Random(4)) == expected


def test_hard_budget_is_cpu_time_of_its_thread() -> None:
    """A small CPU budget ends the search long before a large iteration budget would."""
    state = positions("carpediem", 1, 2)[0]
    bot = IsmctsBot(seconds=0.05, iterations=100_000, early_stop=False)
    start = time.thread_time()
    assert bot.choose(state, random.Random(1)) in state.legal_actions()
    assert bot.last_iterations < 100_000
    assert time.thread_time() - start < 5.0
