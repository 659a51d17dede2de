"""Oh Hell's cards on a terminal: a suited deck, ``QH  Q♥``."""

from __future__ import annotations

from xactika.core.games.ohhell import OHHELL
from xactika.frontends.repl.render import SuitRenderer, register_card_renderer

register_card_renderer(OHHELL.name, SuitRenderer())
