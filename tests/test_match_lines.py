"""The runner formats an event's line once for every seat and for the record
(frontends/match/runner.py): only events every seat sees alike may share a line, and the
record made from those lines is the one made by formatting every event again. Records
are written while the next game plays: all are in place when the run ends, and a failed
write stops the run."""

from __future__ import annotations

import errno
import sys
from pathlib import Path

import pytest

from xactika.core import Config
from xactika.core.bots.agents import RandomAgent, self_play
from xactika.core.engine.api import Dealt, GameOver, GameStarted
from xactika.frontends.match import runner as match
from xactika.frontends.match.game import GamePlayer, MatchSettings, public_event, seat_event
from xactika.frontends.match.tournament import parse_bot, schedule, seeded_deals
from xactika.protocol.records.textform import format_record
from xactika.protocol.trust.manifest import MANIFEST_FILE
from xactika.protocol.trust.signing import ID_HEADER, Signer

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "random_bot.py"


@pytest.mark.parametrize(("game", "mode", "players"), [("xactika", "bid", 4),
                                                       ("xactika", "lose", 3),
                                                       ("dix", "draw", 2)])
def test_an_event_shared_by_all_seats_is_the_same_for_each(game: str, mode: str,
                                                            players: int) -> None:
    config = Config(game=game, mode=mode, players=players, rounds=2, dealer=0, seed=5)
    _, events = self_play(config, [RandomAgent(s) for s in range(players)])
    kinds = {type(e) for e in events if not public_event(e)}
    # the hidden parts: the config's seed, the other hands, game-over's reveal
    assert {GameStarted, Dealt, GameOver} <= kinds
    for event in events:
        if public_event(event):
            assert all(seat_event(event, s) is event for s in range(players)), event


def test_the_record_from_the_lines_sent_is_the_record_formatted_afresh(
        tmp_path: Path) -> None:
    bot = parse_bot(["restart=off", "name=ex", f"cmd={sys.executable} {EXAMPLE} 3"],
                    builtins=["random"])
    settings = MatchSettings((bot,), "xactika", "bid", 3, 2, 1, 9)
    player = GamePlayer(settings, seeded_deals("xactika", "bid", 3, 2, 9, 1),
                        tmp_path / "stderr")
    try:
        played = player.play_game(schedule(1, 3, 1)[0])
    finally:
        assert player.close_idle() == []
    assert played.result.faults == ()
    shared = [line for line in played.lines if line is not None]
    assert len(played.lines) == len(played.events) and len(shared) > 20
    headers = [("game", "xactika"), ("seats", "ex,ex,ex"), (ID_HEADER, "m/1")]
    signer = Signer.generate()
    assert format_record(headers, played.events, signer=signer, lines=played.lines) \
        == format_record(headers, played.events, signer=signer)


@pytest.mark.parametrize("concurrency", ["1", "2"])
def test_every_record_is_in_place_and_pinned_when_the_run_returns(
        concurrency: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Records are written while the next game plays; the run waits for the last."""
    out = tmp_path / "m"
    code = match.main(["--bot", "name=ex", f"cmd={sys.executable} {EXAMPLE} 2",
                       "--bot", "name=ey", f"cmd={sys.executable} {EXAMPLE} 5",
                       "--players", "2", "--rounds", "1", "--deals", "3", "--seed", "3",
                       "--concurrency", concurrency, "--sandbox", "none", "--progress",
                       "none", "--out", str(out)])
    assert code == 0
    games = sorted(p.name for p in (out / "games").iterdir())
    assert games == sorted(f"{g.id}.log" for g in schedule(2, 2, 3))
    manifest = (out / MANIFEST_FILE).read_text()
    assert all(f"file=games/{name} " in manifest for name in games)
    assert manifest.splitlines()[-1].startswith(f"end entries={len(games)} ")


@pytest.mark.parametrize("concurrency", ["1", "2"])
def test_a_record_that_cannot_be_written_stops_the_run_with_one_line(
        concurrency: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    def full(self: object, game: object, path: Path, text: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(match.Runner, "_put_record", full)
    out = tmp_path / "m"
    code = match.main(["--bot", "name=ex", f"cmd={sys.executable} {EXAMPLE} 2",
                       "--bot", "name=ey", f"cmd={sys.executable} {EXAMPLE} 5",
                       "--players", "2", "--rounds", "1", "--deals", "4", "--seed", "3",
                       "--concurrency", concurrency, "--sandbox", "none", "--progress",
                       "none", "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert err[-1].startswith("xactika match: No space left on device: ")
    assert not list((out / "games").glob("*.log"))
