"""Issue 42: a set under way watched live (``/arena/watch/SET``, ``/api/arena/live/SET``)
only where nobody who plays a later seating of its deal can learn from it: every entrant
run by the arena, or the set's last seating. The watcher sees what a spectator of the
table server sees, never a hand; a killed run's live file is never shown; bad input is
a one-line error (spec/ARENA.md, "Watching live")."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from arenakit import run_cmd
from arenawebkit import add_set, cli, ids, live_game, new_arena

from xactika.core.engine.api import BidMade, Dealt, GameOver, Led, Played, game_rules
from xactika.frontends.arena import live
from xactika.frontends.arena.folder import Arena
from xactika.frontends.arena.play import Season
from xactika.frontends.match.sandbox import Sandbox
from xactika.frontends.people.presentation import presentation
from xactika.frontends.web.app import create_app
from xactika.protocol.net.server import Server
from xactika.protocol.notation.text import parse_event

if TYPE_CHECKING:
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore:.*httpx.*")  # TestClient's notice on httpx


def open_client(folder: Path) -> Iterator[TestClient]:
    from starlette.testclient import TestClient

    with TestClient(create_app(Server(), arena=str(folder)).asgi,
                    base_url="http://127.0.0.1") as c:
        yield c


@pytest.fixture
def arena(tmp_path: Path, arena_db: str | None) -> Path:
    return new_arena(tmp_path / "a", arena_db)


def unplayed(events: list[Any], upto: int) -> set[Any]:
    """The cards dealt and not yet played after the first ``upto`` events."""
    cards: set[Any] = set()
    for e in events[:upto]:
        if isinstance(e, Dealt):
            cards = {c for hand in e.hands for c in hand or ()}
        elif isinstance(e, Led | Played):
            cards.discard(e.card)
    return cards


def shows(text: str, card: Any) -> bool:
    """Whether ``text`` names ``card``: its token or its name as the page says it."""
    return bool(re.search(rf"(?<![0-9A-Za-z]){re.escape(str(card))}(?![0-9A-Za-z])", text)) \
        or presentation("xactika").card_name(card) in text


def test_the_rule_of_who_may_be_watched() -> None:
    builtin, program, remote = {"builtin": "random"}, ["./bot"], {"remote": "ab" * 32}
    for rotation in (0, 1):
        assert live.closed([builtin, builtin], rotation, 3, None) is None
        assert live.closed([builtin, program], rotation, 3, True) is None
        assert live.closed([builtin, program], rotation, 3, False) == live.UNSANDBOXED
        assert live.closed([builtin, program], rotation, 3, None) == live.UNSANDBOXED
        assert live.closed([builtin, remote], rotation, 3, True) == live.REMOTE
    for cmds in ([builtin, remote], [program, remote], [program]):
        assert live.closed(cmds, 2, 3, False) is None  # the last seating: nothing remains


def test_a_seating_under_way_is_watched_as_a_spectator_sees_it(arena: Path) -> None:
    going = add_set(arena, ids(arena, "ann", "bea", "cid"), played=0, claimed=True)
    events = live_game(arena, going, upto=20)
    hidden = unplayed(events, 20)
    assert len(hidden) > 3  # cards still in the hands, which nothing may show
    text = live.live_path(arena, going).read_text()
    for c in next(e for e in events if isinstance(e, Dealt)).hands[0]:
        assert not shows(text, c) or c not in hidden
    for client in open_client(arena):
        listed = client.get("/api/arena").json()["playing"]
        assert listed == [{"ladder": "main", "set": going, "entrants": ["ann", "bea", "cid"],
                           "rotation": 1, "rotations": 3, "watch": f"/arena/watch/{going}",
                           "watch_closed": None}]
        page = client.get("/arena").text
        assert f'href="/arena/watch/{going}"' in page
        watch = client.get(f"/arena/watch/{going}")
        assert watch.status_code == 200 and 'src="/static/watch.js"' in watch.text
        r = client.get(f"/api/arena/live/{going}")
        assert r.status_code == 200, r.text
        data = r.json()
        assert data["state"] == "playing" and data["rotation"] == 1
        assert data["names"] == ["ann", "bea", "cid"]  # seating 1: the line-up's order
        assert data["total"] == 20 and len(data["frames"]) == 20
        assert [f["line"] for f in data["frames"]] == text.splitlines()[1:]
        assert all("hands" not in f for f in data["frames"])
        bids = [e for e in events[:20] if isinstance(e, BidMade)]
        assert data["frames"][-1]["bids"] == [
            next((b.bid for b in bids if b.seat == s), None) for s in range(3)]
        body = r.text + watch.text + page
        assert not [c for c in hidden if shows(body, c)]
        later = client.get(f"/api/arena/live/{going}", params={"from": "15"}).json()
        assert later["total"] == 20 and later["frames"] == data["frames"][15:]
        assert client.get(f"/api/arena/live/{going}", params={"from": "99"}).json()[
            "frames"] == []


def test_the_game_over_says_no_seed(arena: Path) -> None:
    going = add_set(arena, ids(arena, "ann", "bea", "cid"), played=0, claimed=True)
    events = live_game(arena, going, seed=918273645546372819)
    over = events[-1]
    assert isinstance(over, GameOver) and over.seed is not None  # the record's reveal
    last = live.live_path(arena, going).read_text().splitlines()[-1]
    assert parse_event(last, game_rules("xactika")).seed is None
    for client in open_client(arena):
        data = client.get(f"/api/arena/live/{going}").json()
        assert data["state"] == "over" and data["frames"][-1]["standings"]
        assert str(over.seed) not in json.dumps(data) and over.nonce not in json.dumps(data)


def test_a_remote_entrants_set_opens_at_its_last_seating(
        arena: Path, tmp_path: Path) -> None:
    cli("add", str(arena), "far", "--owner", "fiona", "--remote")
    lineup = ids(arena, "far", "ann", "bea")
    early = add_set(arena, lineup, played=1, claimed=True)
    live_game(arena, early, rotation=1, upto=12)  # as if written: the web refuses anyway
    last = add_set(arena, lineup, played=2, claimed=True)
    live_game(arena, last, rotation=2, upto=12)
    for client in open_client(arena):
        playing = {p["set"]: p for p in client.get("/api/arena").json()["playing"]}
        assert playing[early]["watch"] is None and playing[early]["watch_closed"] == live.REMOTE
        assert playing[last]["watch"] == f"/arena/watch/{last}"
        page = client.get("/arena").text
        assert f"/arena/watch/{early}" not in page and "the watch opens at" in page
        r = client.get(f"/api/arena/live/{early}")
        assert r.status_code == 403 and r.json() == {"error": live.REMOTE}
        html = client.get(f"/arena/watch/{early}")
        assert html.status_code == 403 and live.REMOTE in unescape(html.text)
        assert "watch.js" not in html.text
        ok = client.get(f"/api/arena/live/{last}")
        assert ok.status_code == 200 and ok.json()["rotation"] == 3
        assert ok.json()["names"] == ["ann", "bea", "far"]  # seating 3 of (far, ann, bea)


def test_a_stale_live_file_is_not_shown(arena: Path) -> None:
    lineup = ids(arena, "ann", "bea", "cid")
    lapsed = add_set(arena, lineup, played=0, claimed=True, lease=-1.0)  # a killed run's
    live_game(arena, lapsed, upto=10)
    taken = add_set(arena, lineup, played=0, claimed=True, run="the-next-run")
    live_game(arena, taken, upto=10, run="someone")  # the killed run's file, not this run's
    behind = add_set(arena, lineup, played=2, claimed=True)
    live_game(arena, behind, rotation=0, upto=10)  # a seating played long ago
    for client in open_client(arena):
        playing = {p["set"]: p for p in client.get("/api/arena").json()["playing"]}
        assert lapsed not in playing
        for set_id in (taken, behind):
            assert playing[set_id]["watch"] is None
            assert playing[set_id]["watch_closed"] == live.WAITING
            data = client.get(f"/api/arena/live/{set_id}").json()
            assert data["state"] == "waiting" and data["frames"] == []
        live_game(arena, taken, upto=6, run="the-next-run")  # appended: the last counts
        data = client.get(f"/api/arena/live/{taken}").json()
        assert data["state"] == "playing" and data["total"] == 6
        r = client.get(f"/api/arena/live/{lapsed}")
        assert r.status_code == 404 and r.json() == {
            "error": f"set {lapsed} is not being played now"}
        assert client.get(f"/arena/watch/{lapsed}").status_code == 404


def test_a_finished_set_links_its_replays(arena: Path) -> None:
    done = add_set(arena, ids(arena, "ann", "bea", "cid"))
    for client in open_client(arena):
        data = client.get(f"/api/arena/live/{done}").json()
        assert data["state"] == "finished"
        assert data["replay"] == [
            f"/replay?file=arena%2Fladders%2Fmain%2Fgames%2Fd{done}-t0-r{r}.log"
            for r in range(3)]
        assert client.get(f"/arena/watch/{done}").status_code == 200


@pytest.mark.parametrize(("path", "status", "error"), [
    ("/api/arena/live/abc", 404, "no set abc in the arena"),
    ("/api/arena/live/999999", 404, "no set 999999 in the arena"),
    ("/api/arena/live/" + "9" * 40, 404, "no set 999999999999 in the arena"),
    ("/api/arena/live/1?from=x", 400, None),
    ("/api/arena/live/1?from=-1", 400, None),
    ("/api/arena/live/1?from=" + "1" * 30, 400, None),
])
def test_bad_input_is_a_one_line_error(arena: Path, path: str, status: int,
                                       error: str | None) -> None:
    going = add_set(arena, ids(arena, "ann", "bea", "cid"), played=0, claimed=True)
    assert going == 1
    live_game(arena, going, upto=5)
    for client in open_client(arena):
        r = client.get(path)
        assert r.status_code == status, r.text
        said = r.json()["error"]
        assert "\n" not in said and said == (error or said) and "Traceback" not in said
        if status == 400:
            assert said.startswith("from= is the number of frames")
        page = client.get(path.replace("/api/arena/live/", "/arena/watch/").split("?")[0])
        assert page.status_code in (200, 404) and "Traceback" not in page.text


def season_files(folder: Path, games: int, monkeypatch: pytest.MonkeyPatch
                 ) -> tuple[Season, list[int]]:
    """A run of ``games`` games outside the sandbox, and the rotation of each seating
    written to a live file, as it was when the seating's game ended."""
    seen: list[live.Seating] = []
    close = live.LiveFile.close

    def keep(self: live.LiveFile) -> None:
        close(self)
        seating = live.read_live(self.path)
        assert seating is not None
        seen.append(seating)

    monkeypatch.setattr(live.LiveFile, "close", keep)
    arena = Arena.open(folder)
    try:
        season = Season(arena, Sandbox("none"), 1, games=games)
        season.run()
        assert season.error is None and season.played == games
    finally:
        arena.close()
    assert list((folder / live.LIVE_DIR).iterdir()) == []  # nothing left on show
    for seating in seen:
        assert seating.run == season.run_id and not seating.sandboxed
        lines = seating.lines
        assert lines[0].startswith("event 1 game-started") and "seed=" not in lines[0]
        assert any(" deal " in line and "hands=?/?/?" in line for line in lines)
        assert lines[-1].split()[2] == "game-over" and "seed=" not in lines[-1]
    return season, [seating.rotation for seating in seen]


def test_the_worker_writes_every_seating_of_built_ins(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = new_arena(tmp_path / "a", entrants=[("ann", "alice", "random")])
    _, rotations = season_files(folder, 6, monkeypatch)
    assert rotations == [0, 1, 2] * 2


def test_the_worker_writes_only_the_last_seating_of_a_program_unsandboxed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A program outside the sandbox might be told what the others show: its sets are
    written at their last seating only."""
    folder = new_arena(tmp_path / "a", entrants=[])
    cmd = run_cmd(folder)[:3]  # this Python, -m xactika.frontends.cli
    cli("add", str(folder), "prog", "--owner", "pat", "--", *cmd, "bot", "random")
    _, rotations = season_files(folder, 6, monkeypatch)
    assert rotations == [2, 2]
