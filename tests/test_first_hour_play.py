"""The end of a local game and forced moves (issue 34): a command that plays the same
deals again (it offered a bare 38-digit ``--seed``, no mode or players), ``again`` and
``new`` at the end, and ``--auto-play`` for a move with one legal choice."""

from __future__ import annotations

import io
import shlex

import attrs
import pytest

from xactika.core.engine.api import Dealt
from xactika.frontends.repl import play, render
from xactika.frontends.repl.gameids import recall
from xactika.frontends.repl.shell import Shell


def setup(*argv: str) -> Shell:
    args = play.build_parser().parse_args(list(argv))
    session = play.setup(args, render.PLAIN)
    session.autoplay = args.auto_play
    session.again = play.again_command(args, session)
    return session


def hint_line(session: Shell) -> str:
    seat = session.human_to_act
    assert seat is not None
    found = session.hint(seat)
    assert found is not None
    return session.command_text(seat, found[0])


def finish(session: Shell) -> str:
    said = "\n".join(session.advance())
    while not session.over:
        reply = session.handle(hint_line(session))
        assert reply.moved, reply.text
        said += "\n" + reply.text
    return said


def settings(session: Shell) -> object:
    """The game's settings; each game commits to its seed with a fresh nonce."""
    return attrs.evolve(session.config, nonce=None, commit=None)


def deals(session: Shell) -> list[object]:
    return [e for e in session.events if isinstance(e, Dealt)]


@pytest.mark.parametrize(("argv", "flags"), [
    (["--players", "3", "--rounds", "1", "--seed", "5", "--level", "2"],
     "--players 3 --rounds 1 --bots strong:2 --seed 5"),
    (["--game", "dix", "--mode", "nodraw", "--seed", "9", "--no-undo"],
     "--game dix --mode nodraw --seed 9 --no-undo"),
    (["--players", "3", "--rounds", "1", "--seed", "6", "--seat", "3=bot:random",
      "--auto-play"],
     "--players 3 --rounds 1 --seat 1=human --seat 2=bot:heuristic --seat 3=bot:random "
     "--seed 6 --auto-play"),
    (["--players", "3", "--rounds", "1", "--seed", "6", "--dealer", "3"],
     "--players 3 --rounds 1 --dealer 3 --seed 6"),
])
def test_the_end_offers_the_command_that_plays_the_same_deals_again(
        argv: list[str], flags: str) -> None:
    session = setup(*argv)
    said = finish(session)
    assert session.again is not None
    command = shlex.split(session.again)
    assert command[command.index("play") + 1:][0] == "--again"  # a short id, not the seed
    assert " ".join(recall(command[-1])) == flags
    assert "'again' plays the same deals again, 'new' a new game" in said
    assert f"\n  {session.again}" in said  # on a line of its own, to paste
    again = setup(*recall(command[-1]))
    assert deals(again)[:1] == deals(session)[:1] and again.seats == session.seats
    assert settings(again) == settings(session)


def test_again_and_new_at_the_end_play_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """``play.main`` plays the same deals after 'again' and fresh ones after 'new'."""
    played: list[Shell] = []
    answers = iter(["again", "new", ""])

    def run(shell: play.Loop) -> int:
        finish(shell.session)
        played.append(shell.session)
        assert shell.session.handle(next(answers) or "quit").quit
        return 0

    monkeypatch.setattr(play.Loop, "run", run)
    code = play.main(["--players", "3", "--rounds", "1", "--seed", "11"],
                     stdin=io.StringIO(""), stdout=io.StringIO())
    assert code == 0 and len(played) == 3
    first, same, new = played
    assert settings(first) == settings(same) and deals(first) == deals(same)
    assert new.config.seed != first.config.seed and deals(new) != deals(first)
    assert first.next_game == "same" and same.next_game == "new" and new.next_game is None


def test_before_the_end_again_is_just_a_word() -> None:
    session = setup("--players", "3", "--rounds", "1", "--seed", "5")
    session.advance()
    assert not session.handle("again").quit and session.next_game is None


def test_auto_play_plays_only_forced_moves() -> None:
    session = setup("--players", "3", "--rounds", "1", "--seed", "5", "--auto-play")
    session.advance()
    forced = 0
    while not session.over:
        before = len(session.events)
        reply = session.play_forced()
        if reply is None:
            assert len(session.legal) > 1  # a real choice waits for the person
            session.handle(hint_line(session))
            continue
        forced += 1
        assert "(your only legal move, played for you)" in reply.text
        assert len(session.events) > before
    assert forced >= 1  # the last card at least
    manual = setup("--players", "3", "--rounds", "1", "--seed", "5")
    manual.advance()
    assert manual.play_forced() is None  # without --auto-play nothing is played


def test_the_shell_never_asks_for_a_forced_move() -> None:
    session = setup("--players", "3", "--rounds", "2", "--seed", "8", "--auto-play")
    asked: list[int] = []

    def read(prompt: str) -> str:
        if session.over:
            raise EOFError
        asked.append(len(session.legal))
        return hint_line(session)

    out = io.StringIO()
    assert play.Loop(session, read, out, interactive=False).run() == 0
    assert session.over and asked and min(asked) > 1
    assert "(your only legal move, played for you)" in out.getvalue()


class _Remote:
    """A RemoteSeat that is never asked anything: the events come through ``take``."""

    host, port, token, tls = "127.0.0.1", 7123, "0123456789abcdef" * 2, None
    seated = "seated table=1 seat=1 players=3"

    def send(self, line: str) -> None:
        raise AssertionError(f"nothing is sent here: {line!r}")

    def close(self) -> None:
        pass


def test_a_remote_game_saves_the_seats_own_view_and_replay_steps_through_it(
        tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 34: the remote end screen said ``'save FILE' still work``, then refused it."""
    from pathlib import Path

    from xactika.core import Config, RandomAgent, visible
    from xactika.core.bots.agents import self_play
    from xactika.core.engine.api import GameStarted, game_rules
    from xactika.frontends.records import replay
    from xactika.frontends.repl.remote import RemoteShell
    from xactika.protocol.notation.text import format_event

    config = Config(mode="bid", players=3, rounds=1, seed=4)
    _, events = self_play(config, [RandomAgent(s) for s in range(3)])
    seen = [visible(e, 1) for e in events]
    started = seen[0]
    assert isinstance(started, GameStarted)
    # issue 41: the view names the seat as the table does (the lobby's join name, or
    # --name), not by the login the hello said (player=)
    session = RemoteShell(_Remote(), 1, started, names=["ann", "Bea", "cy"],  # type: ignore[arg-type]
                            player="root")
    rules = game_rules("xactika")
    for event in seen[1:]:
        session.take(format_event(event, rules))
    session.take("quit")  # the server ends the seat's session after game-over
    assert session.over
    path = Path(str(tmp_path)) / "mine.log"
    said = session.handle(f"save {path}").text
    assert " ".join(said.split()).startswith(
        f"saved {len(seen)} events of your view to {path}")
    assert said.splitlines()[-1].endswith(f"replay {path}")  # a command kept whole
    text = path.read_text(encoding="utf-8")
    assert "header seats ann,Bea,cy" in text and "header view 1" in text
    assert "header seed" not in text and " seed=" not in text.split("game-over")[0]
    hands = next(line for line in text.splitlines() if " deal " in line)
    assert "hands=?/" in hands  # seat 0's hand is not in it
    game = replay.load(str(path), None)
    assert game.view == 1 and len(game.states) == len(seen)
    assert replay.main([str(path), "--keys", "G"]) == 0
    shown = capsys.readouterr().out
    assert "view: seat 2 (Bea)" in shown and "final standings:" in shown
    assert replay.main([str(path), "--seat", "1"]) == 2
    assert "this record is seat 2's view" in capsys.readouterr().err
    # issue 34: 'rematch' at the end said "the game is over"; now the lobby's way on,
    # the seat's token kept for it
    from xactika.frontends.net.lobby import seat_file

    said = session.handle("rematch").text
    assert said.splitlines()[-1].endswith(" lobby 127.0.0.1:7123 rematch 1 --seat 2 --play")
    assert seat_file("127.0.0.1:7123", 1, 1).read_text().strip() == _Remote.token
