"""Tabular Q-learning (OpenSpiel's own learner) in self-play on two-player Machi Koro, then against random.

    python docs/examples/openspiel_machikoro.py [EPISODES]
"""

import sys

import numpy as np
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import random_agent, tabular_qlearner

from ludothek.research import openspiel as ludothek_spiel  # registers the ludothek_* games


def main(episodes: int = 200) -> float:
    game = ludothek_spiel.load("machikoro", players=2, ending="kosmos")
    env = rl_environment.Environment(game, seed=1)  # draws the chance outcomes itself
    n = env.action_spec()["num_actions"]
    learners = [tabular_qlearner.QLearner(player_id=p, num_actions=n) for p in range(2)]
    for _ in range(episodes):  # self-play training
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            step = env.step([learners[player].step(step).action])
        for learner in learners:  # let both learn from the final rewards
            learner.step(step)
    # Evaluate the first learner (greedy) against OpenSpiel's random agent.
    opponents = [learners[0], random_agent.RandomAgent(player_id=1, num_actions=n)]
    returns = []
    for _ in range(20):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            step = env.step([opponents[player].step(step, is_evaluation=True).action])
        returns.append(step.rewards[0])
    mean = float(np.mean(returns))
    print(f"after {episodes} episodes: mean reward against random {mean:+.2f} (+1 win, -1 loss)")
    return mean


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
