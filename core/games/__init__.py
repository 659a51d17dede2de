"""The games, one module each on the shared machinery of core/engine.

Importing this package imports every module in it, and each registers its game
(``register_game``): a new game is a new module here, found without a list to extend.
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
