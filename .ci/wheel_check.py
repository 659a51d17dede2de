"""CI: the installed wheel (not the checkout) holds every module, the license and the
compiled search kernel and deal sampler.

Run by .ci/run with the fresh venv's Python from outside the checkout, so nothing is
imported from the source tree: a subpackage missing from pyproject.toml's list fails
here. A module that needs an optional extra (numpy, OpenSpiel, PettingZoo, Ray, JAX) may
fail to import for that reason only.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil
import sys

OPTIONAL = {"numpy", "pyspiel", "open_spiel", "pettingzoo", "gymnasium", "ray", "jax"}


def main() -> int:
    import xactika.core
    import xactika.frontends
    import xactika.protocol

    bad = []
    count = 0
    for package in (xactika.core, xactika.protocol, xactika.frontends):
        if "site-packages" not in package.__path__[0]:
            bad.append(f"{package.__name__} comes from {package.__path__[0]}, not the wheel")
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith(".__main__"):  # running it is the command itself
                continue
            count += 1
            try:
                importlib.import_module(info.name)
            except ModuleNotFoundError as exc:
                if (exc.name or "").split(".")[0] not in OPTIONAL:
                    bad.append(f"{info.name}: {exc}")
    files = importlib.metadata.files("xactika") or []
    if not any(f.name == "LICENSE" for f in files):
        bad.append("the wheel holds no LICENSE")
    held = {str(f) for f in files}
    for page in ("templates/table.html", "templates/lobby.html", "static/cards.js",
                 "static/table.js", "static/style.css"):  # xactika web's package data
        if f"xactika/frontends/web/{page}" not in held:
            bad.append(f"the wheel holds no xactika/frontends/web/{page}")
    from xactika.core.bots import simulator

    if simulator.KERNEL is None or "site-packages" not in (simulator.KERNEL.__file__ or ""):
        bad.append("the wheel's compiled search kernel (xactika.core.bots._kernel) is "
                   "missing or does not load")
    from xactika.core.bots import sampler

    if sampler.NATIVE is None or "site-packages" not in (sampler.NATIVE.__file__ or ""):
        bad.append("the wheel's compiled deal sampler (xactika.core.bots._sampler) is "
                   "missing or does not load")
    from xactika.frontends.i18n import translator

    if translator("de").gettext("the game is over") == "the game is over":
        bad.append("the wheel's German catalog is missing or does not load")
    for line in bad:
        print(f"wheel check: {line}", file=sys.stderr)
    print(f"wheel check: {count} modules, license included" if not bad else "wheel check: failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
