"""Babel extractors for the texts each game's presentation gives and for the bots' reasons
(babel.cfg).

A presentation's titles, modes, rules topics and help lines are English texts built from
a game and its mode; the frontends show them through ``_()``. (A presentation whose texts
depend on more than the mode makes them from ``_()`` templates itself:
``Presentation.translated``.) Babel finds ``_("...")``
literals only, so this extractor asks every registered presentation for its texts, for
each of its modes, as the frontends show them (whitespace folded), and adds them to the
ordinary Python extraction of the file it is pointed at (presentation.py).

The bots' reasons (a hint's "why") are made in the core, which imports nothing of ours:
their templates are the first arguments of ``Reason(...)`` and ``counted(...)``
(core/engine/reason.py), whatever the extraction's own keywords are.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import Any


def presentation_texts() -> list[str]:
    """Every fixed text the presentations give, each once, in a stable order."""
    from xactika.core.engine.api import game_rules, games
    from xactika.frontends.people import teach
    from xactika.frontends.people.presentation import FollowRule, Presentation, presentation
    from xactika.frontends.repl.suggest import COMMAND_HELP
    from xactika.protocol.notation.text import config_from_pairs

    found: dict[str, None] = {}

    def add(text: str) -> None:
        text = " ".join(text.split())
        if text and any(ch.isalpha() for ch in text):
            found[text] = None

    base = Presentation("any")  # what a game that does not say otherwise says
    for call in (None, object()):
        add(base.cannot_follow(FollowRule(False), call))
    for game in sorted(games()):
        shown = presentation(game)
        add(shown.title())
        add(shown.play_usage())
        add(shown.tutorial_cards)
        add(shown.tutorial_cards_drawn)
        for sort in shown.hand_sorts():
            add(sort)
        for label, _value in shown.option_suggestions().values():
            add(label)
        for words in game_rules(game).option_help.values():
            add(words)  # --help of play and selfplay (people/flags.py)
        for choices in game_rules(game).option_choices.values():
            for choice in choices:
                add(choice)  # a choice's name in the lobby's form (web/facts.py)
        for spoken in (False, True):
            config = config_from_pairs({"game": game}, defaults=True)
            for line in teach.tutorial_intro(config, spoken=spoken):
                add(line)
        for mode in game_rules(game).modes:
            config = config_from_pairs({"game": game, "mode": mode}, defaults=True)
            add(shown.mode_name(config))
            add(shown.bidless_name(config))
            for key in shown.topics(config):
                add(key)  # a heading on the page
            for text in shown.commands(config, dict(COMMAND_HELP)).values():
                add(text)
            if shown.translated:  # made from _() templates: the Python extraction finds them
                continue
            add(shown.banner(config))
            add(shown.mode_line(config))
            add(shown.overview(config))
            for text in shown.topics(config).values():
                add(text)
            for text in shown.help_lines(config):
                add(text)
    return list(found)


def extract_presentation(fileobj: Any, keywords: Mapping[str, Any],
                         comment_tags: Collection[str], options: Any
                         ) -> Iterator[tuple[int, Any, Any, Any]]:
    """Babel's extractor interface: the file's own ``_()`` texts, then the presentations'."""
    from babel.messages.extract import extract_python

    yield from extract_python(fileobj, keywords, comment_tags, options)
    for text in presentation_texts():
        yield 0, "_", text, ["a game's presentation (frontends/people)"]


REASON_KEYWORDS = {"Reason": None, "counted": (1, 2)}
REASON_NOTE = "a bot's hint: {card} {best} {lead} are card codes, {call.words} a call"


def extract_reasons(fileobj: Any, keywords: Mapping[str, Any],
                    comment_tags: Collection[str], options: Any
                    ) -> Iterator[tuple[int, Any, Any, Any]]:
    """Babel's extractor interface: the templates of a bot module's reasons."""
    from babel.messages.extract import extract_python

    for lineno, funcname, message, comments in extract_python(
            fileobj, REASON_KEYWORDS, comment_tags, options):
        # named as gettext's own keywords, which every extraction knows (Babel looks the
        # name up in the extraction's keywords)
        said = "ngettext" if funcname == "counted" else "_"
        note = (options or {}).get("note", REASON_NOTE)  # babel.cfg's, for a section
        yield lineno, said, message, [*list(comments or ()), note]


PARSER_CALLS = {"add_argument", "ArgumentParser", "OneLineParser", "add_parser",
                "add_argument_group", "add_mutually_exclusive_group",
                "add"}  # add = parser.add_argument (match/sandbox.py)
PARSER_TEXTS = ("help", "description", "epilog", "title")
HELP_NOTE = "a command-line option's help (--help); keep %(...)s and %% as they are"


def help_texts(source: bytes) -> Iterator[tuple[int, str]]:
    """The literal help, description and epilog texts of a module's argument parsers
    (frontends/cli/options.py shows them through the catalog), and the one-line help of
    the ``xactika`` command's ``COMMANDS``."""
    import ast

    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            if (name == "add_token_options" and len(node.args) > 1   # net/options.py: what
                    and isinstance(node.args[1], ast.Constant)):
                yield node.args[1].lineno, str(node.args[1].value)
            if name in PARSER_CALLS:
                for keyword in node.keywords:
                    if (keyword.arg in PARSER_TEXTS and isinstance(keyword.value, ast.Constant)
                            and isinstance(keyword.value.value, str)
                            and keyword.value.value.strip()):
                        yield keyword.value.lineno, keyword.value.value
        elif (isinstance(node, ast.AnnAssign | ast.Assign) and isinstance(node.value, ast.Dict)
              and any(getattr(t, "id", None) == "COMMANDS"
                      for t in (node.targets if isinstance(node, ast.Assign)
                                else [node.target]))):
            for value in node.value.values:
                if (isinstance(value, ast.Tuple) and len(value.elts) == 2
                        and isinstance(value.elts[1], ast.Constant)):
                    yield value.elts[1].lineno, str(value.elts[1].value)


def extract_python_and_help(fileobj: Any, keywords: Mapping[str, Any],
                            comment_tags: Collection[str], options: Any
                            ) -> Iterator[tuple[int, Any, Any, Any]]:
    """Babel's extractor interface: the file's ``_()`` texts, then its parsers' help."""
    import io

    from babel.messages.extract import extract_python

    source = fileobj.read()
    for lineno, funcname, message, comments in extract_python(
            io.BytesIO(source), dict.fromkeys([*keywords, "later"]), comment_tags, options):
        # later("...") (i18n.later) is a _() shown later: named so for Babel's keywords
        yield lineno, "_" if funcname == "later" else funcname, message, comments
    for lineno, text in help_texts(source):
        yield lineno, "_", text, [HELP_NOTE]
