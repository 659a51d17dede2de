"""Dix's cards on a terminal: a suited deck, ``QH  Q♥``."""

from __future__ import annotations

from xactika.core.games.dix import DIX
from xactika.frontends.repl.render import SuitRenderer, register_card_renderer

register_card_renderer(DIX.name, SuitRenderer())
