"""The games, one module each on the shared machinery of core/engine.

Importing this package imports every module in it, and each registers its game
(``register_game``): a new game is a new module here, found without a list to extend.
A game outside the package is a plug-in: a module named in ``XACTIKA_PLUGINS`` (see
docs/GAMES.md), imported by :func:`load_plugins` once the core is whole.
"""

import importlib
import os
import pkgutil

from xactika.core.engine.rules import plugin_problems

PLUGINS = "XACTIKA_PLUGINS"
"""The environment variable naming plug-in modules, separated by commas or spaces."""

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")


def plugin_names() -> list[str]:
    """The modules ``XACTIKA_PLUGINS`` names, in order."""
    return os.environ.get(PLUGINS, "").replace(",", " ").split()


def load_plugins() -> None:
    """Import every module named in ``XACTIKA_PLUGINS``: each registers its game (and
    its presentation, cards and bots) as the built-in ones do, in every process that
    imports the core, so a match's bot processes and an auditor know the game too. A
    module that fails to import takes no built-in game down: why is told with the
    error for the game it would have registered (``game_rules``)."""
    for name in plugin_names():
        try:
            importlib.import_module(name)
        except Exception as exc:  # any error of a plug-in is told, later
            plugin_problems.append(f"{PLUGINS}: cannot import {name!r}: "
                                   f"{type(exc).__name__}: {exc}")
