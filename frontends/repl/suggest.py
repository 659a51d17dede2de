"""What to offer as the player types: commands, legal cards, calls and bids.

:func:`suggest` is pure (text before the cursor and a :class:`Context` in, suggestions
out) so it is tested without a terminal; :class:`SuggestCompleter` adapts it to
prompt_toolkit, litecli-style, and hands ``save`` arguments to a path completer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import attrs
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

from xactika.frontends.i18n import N_, _
from xactika.frontends.people.typed import command_name, command_word, topic_name

# command word -> what it does (help text and the completion menu's meta column)
# (English: the commands are typed as they are in every language; translate with _())
COMMAND_HELP: dict[str, str] = {
    "play": N_("play a card: play 3 (its position) or play 1323; a lead adds its call"),
    "bid": N_("bid a number of tricks: bid 2 (or just 2)"),
    "hint": N_("ask a bot what it would do, and why"),
    "undo": N_("take back your last decision (practice games only)"),
    "stats": N_("the stats card and the cards you have not seen this round"),
    "last": N_("the last trick"),
    "scores": N_("the score table"),
    "table": N_("show the table and your hand again"),
    "save": N_("save FILE: write the game to a record file"),
    "rules": N_("how the game is played: rules, or rules TOPIC"),
    "help": N_("list the commands"),
    "quit": N_("leave the game"),
}


@attrs.frozen
class Suggestion:
    """Replace the last ``-start`` characters before the cursor with ``text``."""

    text: str
    start: int
    meta: str = ""


@attrs.frozen
class Context:
    """What the player may do now, as text: built by the session from one seat's view."""

    kind: str = "none"  # bid, lead, play or none
    bids: tuple[int, ...] = ()
    hand: tuple[str, ...] = ()  # card texts in the order shown (position 1 first)
    legal: tuple[str, ...] = ()  # legal card texts
    calls: Mapping[str, tuple[tuple[str, str], ...]] = attrs.Factory(dict)  # card -> (call, words)
    meta: Mapping[str, str] = attrs.Factory(dict)  # card text -> a plain description
    commands: tuple[str, ...] = tuple(COMMAND_HELP)
    topics: tuple[str, ...] = ()  # what 'rules TOPIC' takes


def resolve_card(token: str, ctx: Context) -> str | None:
    """A typed card (its text, or its 1-based position in the hand) as card text."""
    if token.isdigit() and len(token) <= 2:
        i = int(token)
        return ctx.hand[i - 1] if 1 <= i <= len(ctx.hand) else None
    for card in ctx.hand:
        if card.lower() == token.lower():
            return card
    return None


def _matching(word: str, options: Iterable[tuple[str, str]]) -> list[Suggestion]:
    low = word.lower()
    return [Suggestion(text, -len(word), meta) for text, meta in options
            if text.lower().startswith(low)]


def _cards(ctx: Context) -> list[tuple[str, str]]:
    return [(c, ctx.meta.get(c, "")) for c in ctx.legal]


def _bids(ctx: Context) -> list[tuple[str, str]]:
    return [(str(b), _("tricks")) for b in ctx.bids]


def _calls(card: str | None, ctx: Context) -> list[tuple[str, str]]:
    if card is None:
        return []
    return list(ctx.calls.get(card, ()))


def suggest(text: str, ctx: Context) -> list[Suggestion]:
    """Suggestions for the word being typed at the end of ``text``."""
    words = text.split()
    if text and not text[-1].isspace() and words:
        word = words.pop()
    else:
        word = ""
    commands = [(c, _(COMMAND_HELP[c]) if c in COMMAND_HELP else "") for c in ctx.commands]
    if ctx.kind == "bid":
        commands = [c for c in commands if c[0] != "play"]
    elif ctx.kind in ("lead", "play"):
        commands = [c for c in commands if c[0] != "bid"]
    else:
        commands = [c for c in commands if c[0] not in ("bid", "play")]
    # the reader's words first (German 'tipp'), the English ones too, as both are taken
    commands = [*((command_name(c), meta) for c, meta in commands if command_name(c) != c),
                *commands]
    if not words:
        moves = _bids(ctx) if ctx.kind == "bid" else _cards(ctx)
        if ctx.kind == "lead" and ctx.calls:  # a call follows the card: leave room for it
            moves = [(text + " ", meta) for text, meta in moves]
        # a completed command word ends with a blank, ready for its argument (as in bash)
        spaced = [(text + " ", meta) for text, meta in commands]
        return _matching(word, moves + spaced)
    first = command_word(words[0])
    if first == "rules" and len(words) == 1:
        topics = (*ctx.topics, "all")
        return _matching(word, [(t, _("rules topic")) for t in (
            *(topic_name(t) for t in topics if topic_name(t) != t), *topics)])
    if first == "help" and len(words) == 1:
        return _matching(word, commands)
    if first == "bid" and len(words) == 1 and ctx.kind == "bid":
        return _matching(word, _bids(ctx))
    if first == "play" and len(words) == 1 and ctx.kind in ("lead", "play"):
        return _matching(word, _cards(ctx))
    if ctx.kind == "lead":
        # a card given (bare or after play): offer its calls
        card_words = words[1:] if first == "play" else words
        if len(card_words) == 1:
            return _matching(word, _calls(resolve_card(card_words[0], ctx), ctx))
    return []


class SuggestCompleter(Completer):
    """prompt_toolkit's side: asks ``context()`` afresh on every keystroke."""

    def __init__(self, context: Callable[[], Context]) -> None:
        self.context = context
        self.paths = PathCompleter(expanduser=True)

    def get_completions(self, document: Document, complete_event: CompleteEvent
                        ) -> Iterable[Completion]:
        before = document.text_before_cursor
        stripped = before.lstrip()
        if stripped.lower().startswith("save "):
            arg = stripped[5:].lstrip()
            yield from self.paths.get_completions(Document(arg, len(arg)), complete_event)
            return
        for s in suggest(before, self.context()):
            yield Completion(s.text, start_position=s.start, display=s.text.rstrip(),
                             display_meta=s.meta)
