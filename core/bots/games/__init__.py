"""Each game's built-in bots, one module per game named as the game (``dix.py`` for Dix).

Unlike core/games/, importing this package imports none of them: core/bots/agents.py
imports a game's module the first time that game's bots are asked for, so one game's
bots never load another's and ``xactika bot random`` loads none. A module here only
registers (``register_agent``, ``register_redeal``); the bots live beside agents.py,
where games may share them.
"""
