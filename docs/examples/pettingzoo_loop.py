"""A PettingZoo AEC loop over Snowdonia: a masked epsilon-greedy agent with a running value per action.

    python docs/examples/pettingzoo_loop.py [GAMES]
"""

import sys

import numpy as np

from ludothek.research.pettingzoo import env as ludothek_env


def main(games: int = 5) -> dict[str, int]:
    env = ludothek_env("snowdonia", players=2, options={"map": "mount_snowdon"})
    n = env.action_space("player_0").n
    value = np.zeros(n)  # running mean of the final reward after each action index
    count = np.zeros(n)
    rng = np.random.default_rng(0)
    wins = dict.fromkeys(env.possible_agents, 0)
    for game in range(games):
        env.reset(seed=game)  # the seed fixes every chance outcome of the game
        taken: dict[str, list[int]] = {agent: [] for agent in env.possible_agents}
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                wins[agent] += reward > 0  # +1 first, -1 last
                for a in taken[agent]:  # learn: move each taken action's value toward the reward
                    count[a] += 1
                    value[a] += (reward - value[a]) / count[a]
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            if rng.random() < 0.2:
                action = int(rng.choice(legal))
            else:
                action = int(legal[np.argmax(value[legal])])
            taken[agent].append(action)
            env.step(action)
    print(f"wins in {games} games: {wins}")
    return wins


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
