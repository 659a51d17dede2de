"""A whole game in German at the terminal: no English sentence on screen, and every line
fits 80 and 60 columns."""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Iterator

import pexpect
import pytest

from xactika.core import Config, start
from xactika.core.bots.agents import make_agent
from xactika.frontends import i18n
from xactika.frontends.repl import play, render
from xactika.frontends.repl.shell import BOT, HUMAN, SeatSpec, Shell

# Words that only English sentences have (German shares "in", "so", "an", "will").
ENGLISH = set("""
the you your is are to and of with trick tricks bids wins win won card cards seat round
leads plays calling hand legal must follow not game over points total scored final
standings no yet has played nobody taken shows showing highest only deals dealt turn type
commands rules it this that or for a by from any one its their they when which what why
position positions marked called does draws draw stock trumps were be
""".split())
# What stays as typed or as named: the commands (in quotes, or heading a help line), the
# bots' names, the card and shape codes, the keys.
QUOTED = re.compile(r"'[^']*'")
HELP_HEAD = re.compile(r"^\s{2}[a-z?]+\s{2,}")
TYPED = {"play", "bid", "hint", "undo", "stats", "last", "scores", "table", "save", "rules",
         "help", "quit", "all", "again", "new", "back",
         # rules topics, typed after 'rules'
         "cards", "lead", "follow", "win", "scoring", "example", "trumps", "draw", "ten"}
NAMES = {"heuristic", "random", "strong"}
WORD = re.compile(r"[A-Za-zÄÖÜäöüß]+")


def english_words(line: str) -> list[str]:
    plain = QUOTED.sub(" ", HELP_HEAD.sub(" ", render.strip_ansi(line)))
    if "THEMA" in plain:  # the rules topics are named as they are typed
        plain = plain.split(":", 1)[0]
    # English words are written small here; German nouns are capitalised
    return [w for w in WORD.findall(plain) if w not in NAMES and w in ENGLISH - TYPED]


@pytest.fixture
def german() -> Iterator[None]:
    with i18n.using("de"):
        yield


def play_german(game: str, mode: str, players: int, rounds: int, width: int,
                seed: int = 11) -> tuple[Shell, list[str]]:
    """A whole game through the shell, typed as a person would, laid out ``width`` wide,
    asking the hint bot (the heuristic, which gives its reasons) before every move."""
    config = Config(game=game, mode=mode, players=players, rounds=rounds, seed=seed)
    specs = [SeatSpec(HUMAN)] + [SeatSpec(BOT, "random")] * (players - 1)
    session = Shell(start(config), specs, lambda s: make_agent("random", seed * 10 + s,
                                                                 game=game),
                      make_hint=lambda s: make_agent("heuristic", 7 + s, game=game),
                      style=render.Style(color=False))
    extra = iter(["help", "rules", "rules all", "scores", "last", "stats", "hint", "table",
                  "frobnicate", "play 99", "bid x", "undo", "quit", "n"])
    out = io.StringIO()
    hinted: set[int] = set()

    def read(prompt: str) -> str:
        out.write(prompt + "\n")
        if session.over:
            raise EOFError
        said = next(extra, None)
        if said is not None:
            return said
        seat = session.human_to_act
        assert seat is not None
        legal = session.legal
        if len(session.events) not in hinted:
            hinted.add(len(session.events))
            return "hint"
        if legal.kind == "bid":
            return str(legal.bids[-1])
        cards = session.shown_hand(seat)
        wrong = [i for i, c in enumerate(cards, 1) if c not in set(legal.cards)]
        if wrong and not getattr(session, "_tried_wrong", False):
            session._tried_wrong = True  # type: ignore[attr-defined]
            return str(wrong[0])  # an illegal card: the refusal must be German too
        command = next(iter(legal.commands()))
        return session.command_text(seat, command)

    play.Loop(session, read, out, interactive=True, clear="",
               columns=lambda: width).run()
    return session, out.getvalue().split("\n")


@pytest.mark.parametrize(("game", "mode", "players", "rounds"), [
    ("xactika", "bid", 4, 2), ("xactika", "lose", 3, 1), ("dix", "draw", 2, 1),
    ("ohhell", "bonus", 4, 2)])
def test_a_whole_german_game_shows_no_english_sentence(german: None, game: str, mode: str,
                                                        players: int, rounds: int) -> None:
    session, lines = play_german(game, mode, players, rounds, 10_000)  # one line a text
    assert session.over
    english = [(line, words) for line in lines if (words := english_words(line))]
    assert not english, "\n".join(f"{words}: {line}" for line, words in english[:15])
    text = "\n".join(lines)
    for german_word in ("Stich", "Runde", "Endstand", "Befehle:", "deine Hand", "Tipp:"):
        assert german_word in text
    hints = [line for line in lines if line.startswith("Tipp: ")]
    assert len(hints) > 5 and all("  (" in line for line in hints), hints[:3]  # with why


@pytest.mark.parametrize("width", [80, 60])
@pytest.mark.parametrize(("game", "mode", "players"), [
    ("xactika", "bid", 6), ("dix", "draw", 2), ("ohhell", "penalty", 5)])
def test_the_german_repl_fits_the_terminal(german: None, width: int, game: str, mode: str,
                                           players: int) -> None:
    _session, lines = play_german(game, mode, players, 1, width)
    wide = [line for line in lines if render.width(line) > width
            and not render._COMMAND.match(line)]  # a command to paste is never cut
    assert not wide, "\n".join(wide[:10])


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_lang_from_the_environment_in_a_real_terminal() -> None:
    env = {**os.environ, "LANG": "de_DE.UTF-8", "LC_ALL": "", "LANGUAGE": "",
           "LC_MESSAGES": "", "COLUMNS": "80", "XACTIKA_HISTORY": ""}
    child = pexpect.spawn(sys.executable, ["-m", "xactika.frontends.cli", "play", "--seed",
                                           "3", "--rounds", "1", "--players", "3"],
                          env=env, encoding="utf-8", timeout=30, dimensions=(40, 80))
    try:
        child.expect("deine Ansage")
        child.expect("Ansage>")
        child.sendline("sdf")
        child.expect("unbekannter Befehl")
        child.expect("Ansage>")
        child.sendline("quit")
        child.expect(r"unvollendet verlassen\?")
        child.sendline("j")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
