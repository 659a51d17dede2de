"""Issue 41's smaller items at the terminal, each as a player or a script meets it:
``quit`` right after ``save``, the token options' help, ``audit`` of a missing file, the
end screen's words, hot-seat's command and summaries."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from test_first_hour_play import finish, setup

from xactika.frontends import i18n
from xactika.frontends.net import lobby
from xactika.frontends.records import audit
from xactika.frontends.repl import play
from xactika.frontends.repl.gameids import recall


def quit_question(session: play.Shell, typed: list[str]) -> str:
    """What the loop asks when ``typed`` ends in quit, answered 'y'."""
    asked: list[str] = []
    lines = iter(typed)

    def read(prompt: str) -> str:
        asked.append(prompt)
        return next(lines, "y")

    out = io.StringIO()
    assert play.Loop(session, read, out, interactive=True, columns=lambda: 200).run() == 0
    return out.getvalue() + "\n".join(asked)


def test_quit_right_after_save_says_it_is_saved(tmp_path: Path) -> None:
    session = setup("--players", "3", "--rounds", "1", "--seed", "5")
    path = tmp_path / "g.rec"
    said = quit_question(session, [f"save {path}", "quit"])
    assert f"everything so far is saved in {path}" in said
    assert "it is not saved" not in said
    moved = setup("--players", "3", "--rounds", "1", "--seed", "5")
    moved.advance()
    bid = moved.legal.bids[0]
    said = quit_question(moved, [f"save {path}", f"bid {bid}", "quit"])
    assert "it is not saved unless you used 'save FILE'" in said  # a move since the save


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_token_file_help_reads(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    with i18n.using(lang), pytest.raises(SystemExit):
        lobby.build_parser().parse_args(["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "read leave, rematch" not in shown
    if lang == "en":
        assert "the seat's token, for leave and rematch: read it from the first line" in shown


def test_audit_of_a_missing_file_has_no_line_zero(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.log"
    assert audit.main([str(missing)]) == 2
    out = capsys.readouterr().out
    assert out.startswith(f"{missing}: cannot read") and ":0:" not in out


def test_the_end_screen_says_again_and_new_once() -> None:
    session = setup("--players", "3", "--rounds", "1", "--seed", "5")
    finish(session)
    out = io.StringIO()
    loop = play.Loop(session, lambda prompt: "", out, interactive=True, columns=lambda: 200)
    assert loop.run() == 0
    shown = out.getvalue()
    assert shown.count("'again'") == 1 and shown.count("'new'") == 1, shown


def test_hot_seat_summaries_name_the_people_and_the_command_is_hot_seat() -> None:
    session = setup("--hot-seat", "2", "--players", "3", "--rounds", "1", "--seed", "3")
    names = iter(["Ann", "Bob"])
    assert play.ask_names(session, lambda prompt: next(names))
    session.again = play.again_command(play.build_parser().parse_args([]), session)
    said = finish(session)
    summary = [line for line in said.splitlines() if line.startswith(("made their", "missed"))]
    assert summary and all("(Ann)" in line or "(Bob)" in line or "heuristic" in line
                           for line in summary)
    assert "seat 1 (Ann) (bid" in said or "seat 1 (Ann)" in " ".join(summary)
    assert session.again is not None
    flags = " ".join(recall(session.again.split(" --again ", 1)[1]))
    assert flags.startswith("--players 3 --rounds 1 --hot-seat 2 --seat 1=human:Ann "
                            "--seat 2=human:Bob --seed 3"), flags
    again = setup(*flags.split())
    assert again.hot_seat and again.names[:2] == ["Ann", "Bob"]


def test_oh_hell_auto_play_shows_the_hand_and_trumps_before_playing() -> None:
    session = setup("--game", "ohhell", "--players", "3", "--top", "2", "--seed", "2",
                    "--auto-play")
    session.advance()
    forced = session.play_forced()  # round 1: the dealer's one bid the hook leaves
    assert forced is not None
    text = forced.text
    assert text.index("turned up:") < text.index("your hand") < text.index(
        "(your only legal move, played for you)")
    again = session.play_forced()  # the card of round 1: the hand was shown this round
    assert again is not None and "your hand" not in again.text.split("(your only")[0]


def test_connect_ends_with_a_result_line(tmp_path: Path) -> None:
    from netkit import LiveServer
    from test_server_remote import connect

    with LiveServer(tmp_path) as live:
        table = live.table(players=2, rounds=1, seed=7)
        bots = [connect(live.port, s.token) for s in table.seats]
        live.wait_over(table)
        said = []
        for bot in bots:
            _out, err = bot.communicate(timeout=20)
            assert bot.returncode == 0
            said.append(err.strip().splitlines()[-1])
    winners = {s for s, total in enumerate(table.totals()) if total == max(table.totals())}
    totals = ", ".join(f"seat {s} {t}" for s, t in enumerate(table.totals()))
    for seat, last in enumerate(said):
        assert last.startswith("xactika connect: the game is over: "), last
        assert last.endswith(f"; totals: {totals}")
        assert (f"seat {seat} wins" in last) == (seat in winners), last


def test_watching_a_serve_table_from_the_lobby_says_how(tmp_path: Path) -> None:
    import subprocess
    import sys

    from netkit import LiveServer

    from xactika.protocol.net.lobby import LobbyPolicy

    with LiveServer(tmp_path, lobby=LobbyPolicy()) as live:
        live.table(players=2, rounds=1, seed=7)  # the server's own, as serve's --tables
        xactika = Path(sys.executable).with_name("xactika")
        run = [str(xactika), "lobby", f"127.0.0.1:{live.port}"]
        listed = subprocess.run(run, capture_output=True, text=True, timeout=60, check=False)
        assert listed.stdout.splitlines()[1].split()[:2] == ["1", "xactika"]
        watched = subprocess.run([*run, "watch", "1"], capture_output=True, text=True,
                                 timeout=60, check=False)
        assert watched.returncode != 0
        assert "no lobby table 1" not in watched.stderr
        assert "table 1 is the server's own, not the lobby's: watch it with its observer " \
            "token" in watched.stderr and watched.stderr.count("\n") == 1


def test_replay_and_match_lines_fit_80_columns(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from xactika.frontends.match.sandbox import Sandbox, describe
    from xactika.frontends.repl import render

    xactika = str(Path(sys.executable).with_name("xactika"))
    record = tmp_path / "ten.rec"
    subprocess.run([xactika, "selfplay", "--players", "10", "--rounds", "1", "--seed", "3",
                    "--quiet", "--record", str(record)], check=True, capture_output=True)
    shown = subprocess.run([xactika, "replay", str(record), "--seat", "1", "--keys",
                            " ".join("l" * 13)],
                           check=True, capture_output=True, text=True,
                           env=dict(os.environ, COLUMNS="80")).stdout
    assert "cards in the other hands" in shown
    assert max(render.width(line) for line in shown.splitlines()) <= 80
    assert render.width("xactika match: " + describe(Sandbox(kind="bwrap"))) <= 80


def test_a_match_on_ray_prints_no_token_notice(tmp_path: Path) -> None:
    import subprocess
    import sys

    pytest.importorskip("ray")
    xactika = str(Path(sys.executable).with_name("xactika"))
    done = subprocess.run([xactika, "match", "--bot", "random", "name=a", "--bot", "random",
                           "name=b", "--deals", "1", "--players", "2", "--rounds", "1",
                           "--cluster", "ray", "--out", str(tmp_path / "m"), "--progress",
                           "none", "--sandbox", "none"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "Token authentication" not in done.stderr and "WARNING" not in done.stderr, \
        done.stderr


@pytest.mark.parametrize("hint", ["on", "off"])
def test_a_table_setting_turns_hint_off_for_people(tmp_path: Path, hint: str) -> None:
    import os
    import sys

    from netkit import Client, LiveServer, in_thread, play_first

    from xactika.protocol.net.lobby import LobbyPolicy

    pexpect = pytest.importorskip("pexpect")
    with LiveServer(tmp_path, lobby=LobbyPolicy()) as live:
        client = Client(live.port)
        client.send("lobby")
        assert client.read() is not None
        client.send(f"create players=2 rounds=1 hint={hint}")
        assert (client.read() or "").startswith("created table=1")
        client.send("join 1 name=bob")
        bob = (client.read() or "").split("token=")[1].split()[0]
        client.send("join 1 name=ann")
        ann = (client.read() or "").split("token=")[1].split()[0]
        client.close()
        other = in_thread(play_first, Client(live.port), bob)
        env = dict(os.environ, NO_COLOR="1", TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
                   XACTIKA_HISTORY="", XACTIKA_TOKEN=ann)
        child = pexpect.spawn(str(Path(sys.executable).with_name("xactika")),
                              ["play", "--connect", f"127.0.0.1:{live.port}"], env=env,
                              encoding="utf-8", timeout=20, dimensions=(40, 120))
        try:
            child.expect(r"(bid|lead|play)>")
            child.sendline("hint")
            found = child.expect(["no hints at this table: its setting hint=off",
                                  r"hint: (bid|play) "])
            assert found == (0 if hint == "off" else 1)
        finally:
            child.close(force=True)
        del other
    settings = live.server.tables[0].settings
    assert settings.hints == (hint == "on")
