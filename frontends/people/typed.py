"""What a person types, in the reader's language too: command words and rules topics
(German ``hilfe``, ``tipp``, ``regeln karten``); the English words are always taken.

The catalog gives each English word under a context (``typed command``, ``rules
topic``): the reader's words for it, separated by spaces (``spiel spiele``), lower case.
The words are the catalog's literal ``pgettext`` calls here, so extraction finds them.
"""

from __future__ import annotations

from xactika.frontends.i18n import SOURCE, current, pgettext


def _commands() -> dict[str, str]:
    return {
        "play": pgettext("typed command", "play"),
        "bid": pgettext("typed command", "bid"),
        "hint": pgettext("typed command", "hint"),
        "undo": pgettext("typed command", "undo"),
        "stats": pgettext("typed command", "stats"),
        "last": pgettext("typed command", "last"),
        "scores": pgettext("typed command", "scores"),
        "table": pgettext("typed command", "table"),
        "save": pgettext("typed command", "save"),
        "rules": pgettext("typed command", "rules"),
        "help": pgettext("typed command", "help"),
        "quit": pgettext("typed command", "quit"),
        "again": pgettext("typed command", "again"),
        "new": pgettext("typed command", "new"),
        "back": pgettext("typed command", "back"),
    }


def _topics() -> dict[str, str]:
    return {
        "cards": pgettext("rules topic", "cards"),
        "trumps": pgettext("rules topic", "trumps"),
        "deal": pgettext("rules topic", "deal"),
        "bid": pgettext("rules topic", "bid"),
        "lead": pgettext("rules topic", "lead"),
        "follow": pgettext("rules topic", "follow"),
        "win": pgettext("rules topic", "win"),
        "draw": pgettext("rules topic", "draw"),
        "ten": pgettext("rules topic", "ten"),
        "scoring": pgettext("rules topic", "scoring"),
        "example": pgettext("rules topic", "example"),
        "all": pgettext("rules topic", "all"),
    }


def _words(said: dict[str, str]) -> dict[str, str]:
    """The reader's word -> the English one (nothing for English, or an untranslated
    word)."""
    if current() == SOURCE:
        return {}
    return {word: english for english, text in said.items() if text != english
            for word in text.lower().split()}


def command_word(word: str) -> str:
    """The English command a typed word is (``tipp`` -> ``hint``), else the word."""
    low = word.lower()
    return _words(_commands()).get(low, low)


def english_line(line: str) -> str:
    """The line with its first word as the English command (``ansage 2`` -> ``bid
    2``), the rest as typed; a line that starts with no command word is as it was."""
    head, _sep, rest = line.strip().partition(" ")
    english = command_word(head)
    if english == head.lower() or not head:
        return line
    return f"{english} {rest}".rstrip()


def topic_word(word: str) -> str:
    """The English rules topic a typed word is (``karten`` -> ``cards``), else the word."""
    low = word.lower()
    return _words(_topics()).get(low, low)


def topic_name(topic: str) -> str:
    """A topic as the reader types it (``cards``: German ``karten``): its first word."""
    said = _topics().get(topic, topic)
    return said.split()[0] if said != topic and said.split() else topic


def command_name(command: str) -> str:
    """A command as the reader types it (``hint``: German ``tipp``): its first word."""
    said = _commands().get(command, command)
    return said.split()[0] if said != command and said.split() else command


def said_command(text: str) -> str:
    """A whole command as the reader types it: ``bid 2`` is German ``ansage 2`` (the rest
    of the line, cards and calls, is taken as it is in every language)."""
    head, sep, rest = text.partition(" ")
    return command_name(head) + sep + rest


__all__ = ["command_name", "command_word", "english_line", "said_command", "topic_name",
           "topic_word"]
