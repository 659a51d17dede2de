"""What a game says to teach itself: rules by topic, why a trick was won, round ends.

Plain text from plain data, for the game and mode being played, so a newcomer learns
inside the game without opening a spec; the REPL and a web page show the same texts.
What a game says is asked of its presentation (:mod:`.games`), so any new game is
taught as itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xactika.core.engine.api import Config, Dealt, Led, Played, RoundScored, Trick, TrickWon
from xactika.frontends.i18n import N_, _, said
from xactika.frontends.people.presentation import presentation
from xactika.frontends.people.typed import topic_name, topic_word

# --------------------------------------------------------------------------- rules


def mode_text(config: Config) -> str:
    """What the mode means, in one line (for the banner)."""
    return presentation(config.game).banner(config)


def topics(config: Config) -> dict[str, str]:
    """Topic name -> text, for the game and mode being played, in reading order.

    Each text is one paragraph: the REPL wraps it to the terminal's width. The topic
    names stay as typed; the texts are in the reader's language.
    """
    found = presentation(config.game).topics(config)
    return {k: said(v) for k, v in found.items()}


def overview(config: Config) -> str:
    """The game in a few lines, then the topics to ask for."""
    names = " ".join(topic_name(t) for t in topics(config))  # as the reader types them
    text = said(presentation(config.game).overview(config))
    if not names:
        return text
    return text + "\n" + _("more: 'rules TOPIC' with TOPIC one of: {names}, all").format(
        names=names)


ALIASES = {"bidding": "bid", "bids": "bid", "score": "scoring", "points": "scoring",
           "leading": "lead", "following": "follow", "winning": "win", "card": "cards",
           "trump": "trumps", "drawing": "draw", "stock": "draw", "tens": "ten",
           "ten-tricks": "ten", "ten-trick": "ten", "winner": "win"}


def rules_text(config: Config, topic: str = "") -> str:
    """``rules`` alone, ``rules TOPIC`` or ``rules all``; an unknown topic names them."""
    found = topics(config)
    typed = topic
    topic = topic_word(topic.strip())  # German 'karten' is 'cards'
    if not topic:
        return overview(config)
    if topic == "all":
        return "\n\n".join(found.values())
    key = ALIASES.get(topic, topic)
    if key in found:
        return found[key]
    return _("no rules topic {topic}: try one of {names}, all").format(
        topic=repr(typed.strip()), names=", ".join(topic_name(t) for t in found))


# --------------------------------------------------------------------------- tricks


def why_won(game: str, plays: Sequence[tuple[int, Any]], call: Any, winner: int,
            turned: Any, names: Sequence[str]) -> str:
    """One line: why the trick's winner won it, by the rules as implemented."""
    return presentation(game).why_won(plays, call, winner, turned, names)


# --------------------------------------------------------------------------- rounds


def round_tricks(events: Sequence[Any], end: int) -> tuple[list[Trick], Any]:
    """The finished tricks of the round whose events end at index ``end``, and its turned card."""
    tricks: list[Trick] = []
    plays: list[tuple[int, Any]] = []
    call: Any = None
    turned: Any = None
    start = 0
    for i in range(end, -1, -1):
        if isinstance(events[i], Dealt):
            start, turned = i, events[i].turned
            break
    for event in events[start:end + 1]:
        if isinstance(event, Led):
            plays, call = [(event.seat, event.card)], event.call
        elif isinstance(event, Played):
            plays.append((event.seat, event.card))
        elif isinstance(event, TrickWon):
            tricks.append(Trick(call, tuple(plays), event.seat))
    return tricks, turned


def round_end(config: Config, scored: RoundScored, tricks: Sequence[Trick],
              names: Sequence[str]) -> str:
    """Who made their bid (Play to Bid), or Dix's ten-tricks and who won the round."""
    return presentation(config.game).round_end(config, scored, tricks, names)


# --------------------------------------------------------------------------- the tutorial

# English, as every constant here: shown through _() in the reader's language
TUTORIAL_INTRO = N_(
    "tutorial: a guided first round. Before each of your moves a 'tutorial:' line says "
    "what to do and why, and what the hint bot would play; type that or your own move. "
    "After round 1 the game goes on as a normal game."
)
N_("tutorial: a guided first round. Before each of your moves a 'tutorial:' line says "
   "what to do and why, and what the hint bot would play; type that or your own move.")

TUTORIAL_DONE = N_(
    "tutorial: that was the guided round; from here it is a normal game. 'hint' suggests "
    "a move, 'rules' explains any part, 'undo' takes a move back."
)


def tutorial_intro(config: Config, spoken: bool = False) -> list[str]:
    """The tutorial's opening paragraphs for this game; ``spoken``: for a page, which
    draws the cards and never shows their text."""
    intro = TUTORIAL_INTRO
    if config.rounds == 1:  # nothing comes after the guided round
        intro = intro.replace(" After round 1 the game goes on as a normal game.", "")
    shown = presentation(config.game)
    cards = shown.tutorial_cards_drawn if spoken else shown.tutorial_cards
    return [intro, cards] if cards else [intro]


__all__ = ["TUTORIAL_DONE", "TUTORIAL_INTRO", "mode_text", "overview", "round_end",
           "round_tricks", "rules_text", "topics", "tutorial_intro", "why_won"]
