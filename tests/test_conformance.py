"""Every registered game through every edge a person or a program sees it by: selfplay,
a signed record and ``audit --strict``, the REPL played to the end, ``replay``'s screens
at every event, and the bridges' renders (PettingZoo's ``ansi``, OpenSpiel's strings);
plus a tiny game registered only here, which has nothing but its rules.

No text may name a joker, a call or a trump that the game does not have: what a game has
is asked of the game (its deck, its calls, what its deals turn up), never listed here.
:data:`EXPECTED_GAMES` is the one deliberate list of games in the tests (as OpenSpiel's
``EXPECTED_GAMES``); every other list is derived from the registry.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from xactika.core import (
    Bid,
    Config,
    Dealt,
    RandomAgent,
    State,
    TrickGame,
    game_rules,
    games,
    start,
)
from xactika.core.bots.agents import make_agent, self_play
from xactika.core.engine import api
from xactika.core.engine.rng import deal_key, shuffled
from xactika.frontends.people.seats import default_names
from xactika.frontends.records.replay import Cursor, Game, screen
from xactika.frontends.repl.render import strip_ansi
from xactika.frontends.repl.shell import BOT, HUMAN, SeatSpec, Shell
from xactika.frontends.stdio import selfplay
from xactika.protocol.records.textform import read_record
from xactika.protocol.trust.audit import OK, audit_file
from xactika.protocol.trust.signing import write_key

ROOT = Path(__file__).resolve().parent.parent
EXPECTED_GAMES = ("dix", "ohhell", "xactika")
"""The games the package ships. A new game adds its name here, deliberately."""


class Tiny(TrickGame):
    """Two or three players, eight cards A1..B4, two cards each: follow the letter led,
    the highest number of it wins; a point a trick. No bids, calls, trumps or joker."""

    name = "tiny-test"
    modes = ("plain",)
    min_players = 2
    max_players = 3
    default_players = 2
    default_rounds = 2
    deck = tuple(f"{s}{n}" for s in "AB" for n in "1234")
    card_type = str

    def hand_size(self, config: Config, round_no: int = 1) -> int:
        return 2

    def deal(self, config: Config, round_no: int, dealer: int) -> Dealt:
        assert config.seed is not None
        n = config.players
        cards = shuffled(self.deck, deal_key(self.name, config.seed, round_no))
        hands = tuple(tuple(sorted(cards[(s - dealer - 1) % n: 2 * n: n])) for s in range(n))
        return Dealt(0, round_no, dealer, hands, tuple(cards[2 * n:]), None)

    def legal_cards(self, state: State, seat: int) -> tuple[str, ...]:
        hand: tuple[str, ...] = state.hands[seat]
        led = state.trick[0][1][0] if state.trick else None
        return tuple(c for c in hand if c[0] == led) or hand

    def trick_winner(self, state: State, plays: Sequence[tuple[int, Any]], call: Any) -> int:
        led = plays[0][1][0]
        return max((p for p in plays if p[1][0] == led), key=lambda p: p[1])[0]

    def score_round(self, state: State) -> tuple[int, ...]:
        return state.taken

    def parse_card(self, text: str) -> str:
        if text.upper() not in self.deck:
            raise ValueError(f"bad card {text!r}")
        return text.upper()

    def parse_call(self, text: str) -> Any:
        raise ValueError("no calls")


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    game = Tiny()
    monkeypatch.setitem(api._GAMES, game.name, game)
    yield game.name


def test_the_registry_holds_exactly_the_expected_games() -> None:
    assert games() == EXPECTED_GAMES


# --------------------------------------------------------------------------- what a game has


def _has(game: str, config: Config) -> dict[str, bool]:
    """What the game has, asked of the game: a joker in its deck, a call for some card,
    a card turned up in some deal of ``config``."""
    rules = game_rules(game)
    _, events = self_play(config, [RandomAgent(s) for s in range(config.players)])
    return {
        "joker": any(getattr(c, "is_joker", False) for c in rules.deck),
        "call": any(rules.calls_for(c) != (None,) for c in rules.deck),
        "trump": any(e.turned is not None for e in events if isinstance(e, Dealt)),
    }


WORDS = {"joker": re.compile(r"\bjokers?\b", re.I),
         "call": re.compile(r"\bcall(s|ed|ing)?\b", re.I),
         "trump": re.compile(r"\btrumps?\b", re.I)}
# saying a game has none of a thing is true of it
NONE_OF = re.compile(r"\b(has no|no|without (a|the)?) ?(jokers?|calls?|trumps?)\b", re.I)


def _false_names(texts: Sequence[str], has: dict[str, bool]) -> list[str]:
    found = []
    for text in texts:
        for line in strip_ansi(text).splitlines():
            bare = NONE_OF.sub("", line)
            found += [f"{what}: {line.strip()}" for what, word in WORDS.items()
                      if not has[what] and word.search(bare)]
    return found


# --------------------------------------------------------------------------- the edges


def _config(game: str) -> Config:
    rules = game_rules(game)
    return Config(game=game, players=rules.min_players, rounds=2, seed=5)


def _selfplay_and_audit(game: str, tmp: Path) -> tuple[list[str], Path]:
    key = tmp / "key"
    signer = write_key(key)
    record = tmp / f"{game}.rec"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = selfplay.main(["--game", game, "--seed", "5", "--rounds", "2", "--players",
                              str(game_rules(game).min_players), "--record", str(record),
                              "--key", str(key)])
    assert code == 0
    report = audit_file(str(record), strict=True, trusted=(signer.public,))
    assert report.status == OK, report.problems
    return [out.getvalue()], record


def _repl(config: Config) -> list[str]:
    specs = [SeatSpec(HUMAN)] + [SeatSpec(BOT, "random")] * (config.players - 1)
    session = Shell(start(config), specs, lambda s: make_agent("random", 100 + s),
                      make_hint=lambda s: make_agent("random", 7 + s), practice=True)
    said = [session.intro(), *session.advance(), session.help_text()]
    said += [session.handle(line).text for line in ("rules", "rules all")]
    while not session.over:
        seat = session.human_to_act
        assert seat is not None
        said.append(session.table(seat))
        found = session.hint(seat)
        assert found is not None
        command = found[0]
        if isinstance(command, Bid):
            typed = str(command.bid)
        else:
            typed = str(session.shown_hand(seat).index(command.card) + 1)
            if command.call is not None:
                typed += " " + game_rules(config.game).format_call(command.call)
        reply = session.handle(typed)
        assert reply.moved, reply.text
        said.append(reply.text)
    said += [session.handle(line).text for line in ("scores", "last")]
    return said


def _replay(record: Path) -> list[str]:
    g = Game.from_record(read_record(str(record)))
    assert g.problem is None
    return [screen(g, Cursor(pos, seat)) for pos in range(len(g.events))
            for seat in (None, 0)]


def _pettingzoo(config: Config) -> list[str]:
    pettingzoo = pytest.importorskip("xactika.frontends.bridges.pettingzoo")
    env = pettingzoo.env(game=config.game, players=config.players, rounds=1,
                         render_mode="ansi")
    env.reset(seed=5)
    said = []
    for _ in env.agent_iter():
        observation, _, done, _, _ = env.last()
        said.append(env.render())
        if done:
            env.step(None)
        else:
            env.step(int(observation["action_mask"].nonzero()[0][0]))
    return said


def _openspiel(config: Config) -> list[str]:
    pyspiel = pytest.importorskip("pyspiel")
    from xactika.frontends.bridges import openspiel  # noqa: F401  (registers the games)

    game = pyspiel.load_game(f"python_{config.game}", {
        "players": config.players, "mode": config.mode, "rounds": 1})
    state = game.new_initial_state()
    said = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
            continue
        said += [str(state), state.observation_string(state.current_player())]
        state.apply_action(state.legal_actions()[0])
    return [*said, str(state)]


@pytest.mark.parametrize("game", EXPECTED_GAMES)
def test_every_edge_tells_the_truth_about_the_game(game: str, tmp_path: Path) -> None:
    config = _config(game)
    has = _has(game, config)
    said, record = _selfplay_and_audit(game, tmp_path)
    said += _repl(config) + _replay(record) + _pettingzoo(config) + _openspiel(config)
    assert _false_names(said, has) == []
    # the words are there where the game has the thing (the check can find them)
    for what in ("joker", "call", "trump"):
        if has[what] and what != "joker":
            assert any(WORDS[what].search(strip_ansi(t)) for t in said), what


def test_a_game_registered_only_here_plays_at_every_edge_as_itself(
        tiny: str, tmp_path: Path) -> None:
    config = _config(tiny)
    has = _has(tiny, config)
    assert has == {"joker": False, "call": False, "trump": False}
    said, record = _selfplay_and_audit(tiny, tmp_path)
    said += _repl(config) + _replay(record) + _pettingzoo(config)
    assert _false_names(said, has) == []
    text = "\n".join(said)
    assert "you must follow" in text or "your play: any card" in text
    assert "plays it: 'B4'" in text  # the help's example is one of its cards
    # a seat asked to be "heuristic" at a game without one is called what it plays
    assert default_names([SeatSpec(HUMAN), SeatSpec(BOT, "heuristic")], tiny) == [
        "you", "random"]


def test_a_match_refuses_a_bot_the_game_does_not_have(tiny: str) -> None:
    """A match would rate the random bot as "heuristic": one line refuses it instead."""
    from xactika.frontends.match.runner import build_parser, settings_from_args
    from xactika.frontends.match.tournament import MatchError

    def settings(game: str, *bot: str) -> object:
        return settings_from_args(build_parser().parse_args(
            ["--game", game, "--seed", "1", "--bot", *bot, "--bot", "random", "name=other"]))

    for bot in ("heuristic", "strong", "strong:3"):
        with pytest.raises(MatchError, match=f"^bot {bot.replace(':', '-')}: {tiny} has no "
                                             f"{bot} bot \\(it would play at random\\)"):
            settings(tiny, bot)
        settings(EXPECTED_GAMES[0], bot)  # every shipped game has them
    settings(tiny, "random")


def test_a_bot_process_says_when_the_random_bot_stands_in(tiny: str) -> None:
    """``xactika bot heuristic`` at a game without a heuristic plays at random, and says
    so in an info line (what check-bot and a match's log show), once."""
    from xactika.frontends.stdio.bot import honest_session

    def said(name: str, game: str, players: int) -> list[str]:
        session = honest_session(name, 1)
        lines = ["hello 1", "newgame seat=0", f"event 1 game-started game={game} "
                 f"mode={game_rules(game).default_mode} players={players} rounds=2 dealer=0"]
        return [out for line in [*lines, lines[2]] for out in session.feed(line)]  # twice

    assert said("heuristic", tiny, 2)[1:] == [
        f"info heuristic has no implementation for {tiny}: it plays at random"]
    assert said("strong:2", tiny, 2)[1:] == [
        f"info strong:2 has no implementation for {tiny}: it plays at random"]
    assert said("heuristic", "dix", 2)[1:] == []


def test_the_check_finds_a_false_word() -> None:
    has = {"joker": False, "call": False, "trump": False}
    assert _false_names(["the joker is a trump ranked as TD"], has) == [
        "joker: the joker is a trump ranked as TD", "trump: the joker is a trump ranked as TD"]
    assert _false_names(["Oh Hell has no calls", "no trumps this round"], has) == []


def test_a_plug_in_presentation_registered_first_leaves_the_built_ins_found() -> None:
    """A fresh process: a plug-in registers its presentation before anything asks for
    one, and every built-in game is still told as itself."""
    code = ("from xactika.core import games\n"
            "from xactika.frontends.people.presentation import Presentation, presentation, "
            "register_presentation\n"
            "register_presentation(Presentation('plug-in'))\n"
            "print(' '.join(type(presentation(g)).__name__ for g in games()))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)
    assert "Presentation" not in done.stdout.split(), done.stdout
    assert len(done.stdout.split()) == len(EXPECTED_GAMES)


# --------------------------------------------------------------------------- a plug-in


PLUG_IN_CHECKS = """
import pyspiel
from pettingzoo.test import api_test
from xactika.core.bots.agents import plays
from xactika.frontends.bridges import openspiel
from xactika.frontends.bridges.pettingzoo import env
from xactika.frontends.repl.render import card_renderer
from xactika.frontends.web.facts import all_games

game = pyspiel.load_game("python_jacks", {"players": 3})
state = game.new_initial_state()
while not state.is_terminal():
    state.apply_action(state.chance_outcomes()[0][0] if state.is_chance_node()
                       else state.legal_actions()[-1])
print(str(state))
api_test(env(game="jacks", players=3, render_mode="ansi"), num_cycles=20)
print([f["title"] for f in all_games() if f["name"] == "jacks"])
print(card_renderer("jacks").card("QH", None), plays("heuristic", "jacks"),
      plays("strong", "jacks"))
"""


def test_a_plug_in_game_from_the_docs_plays_everywhere_with_no_file_of_ours(
        tmp_path: Path) -> None:
    """docs/GAMES.md's fifth game, written to a folder of its own and named in
    XACTIKA_PLUGINS: selfplay, audit --strict, replay, the REPL with its own bot, a match
    in the sandbox (whose bot processes must find it too), the bridges and the lobby."""
    pytest.importorskip("pyspiel")
    block = re.search(r"```python\n(.*?)```", (ROOT / "docs" / "GAMES.md").read_text(),
                      re.S)
    assert block is not None
    (tmp_path / "jacks.py").write_text(block.group(1))
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "XACTIKA_PLUGINS": "jacks"}

    def run(*args: str, stdin: str = "", ok: bool = True) -> str:
        done = subprocess.run([sys.executable, *args], input=stdin, capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=120)
        assert (done.returncode == 0) == ok, done.stderr
        return done.stdout + done.stderr

    def xactika(*args: str, stdin: str = "", ok: bool = True) -> str:
        return run("-m", "xactika.frontends.cli", *args, stdin=stdin, ok=ok)

    xactika("keygen", "k")
    said = [xactika("selfplay", "--game", "jacks", "--seed", "5", "--record", "j.log",
                    "--key", "k")]
    assert "0 problems" in xactika("audit", "--strict", "--key", "k.pub", "j.log")
    said.append(xactika("replay", "--keys", "t t G", "j.log"))
    played = xactika("play", "--game", "jacks", "--seed", "3", "--seat", "2=bot:heuristic",
                     "--seat", "3=bot:strong", stdin="hint\nrules\nquit\n")
    assert "Jacks: plain, 3 players" in played and "2 heuristic (bot), 3 random (bot)" in played
    assert "the highest card of the suit led takes the trick" in played  # its overview
    assert re.search(r"\b[JQKA][SHDC]  [JQKA][♠♥♦♣]", played)  # its own card renderer
    said.append(played)
    said.append(xactika("match", "--game", "jacks", "--bot", "heuristic", "--bot", "random",
                        "--deals", "1", "--out", "m", "--key", "k", "--progress", "none"))
    assert re.search(r"^heuristic +3 +0 ", said[-1], re.M), said[-1]  # 3 games, no fault
    assert "0 problems" in xactika("audit", "--strict", "--key", "k.pub", "m")
    assert "jacks has no strong bot" in xactika(
        "match", "--game", "jacks", "--bot", "strong", "--bot", "random", "--out", "n",
        ok=False)
    checked = run("-c", PLUG_IN_CHECKS)
    assert "['Jacks']" in checked and "QH  Q♥ heuristic random" in checked
    said.append(checked)
    assert _false_names(said, {"joker": False, "call": False, "trump": False}) == []


def test_a_plug_in_that_fails_to_load_is_named_in_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "XACTIKA_PLUGINS": "no_such_plug_in"}
    done = subprocess.run([sys.executable, "-m", "xactika.frontends.cli", "selfplay",
                           "--game", "jacks"], capture_output=True, text=True, env=env,
                          timeout=60)
    assert done.returncode != 0 and done.stderr.count("\n") == 1, done.stderr
    assert "unknown game 'jacks'" in done.stderr
    assert "XACTIKA_PLUGINS: cannot import 'no_such_plug_in'" in done.stderr
