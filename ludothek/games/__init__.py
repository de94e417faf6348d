"""``ludothek.games``: one package per game, each of one shape (see docs/engine.md, "Adding a game").

The engine finds them through its registry (`ludothek.engine.registry.GAME_MODULES`); nothing here
imports them, so a game's import cost is paid only when it is played.
"""
