"""How a terminal draws each game's cards: the module named as the game registers its
:class:`~xactika.frontends.repl.render.CardRenderer` (``register_card_renderer``), found
by the game's name the first time its cards are drawn. A game with none here (or from
its presentation module, where a plug-in registers its own) has its cards drawn as
their text."""
