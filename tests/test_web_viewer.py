"""The web replay and match viewers at the HTTP level: JSON, redaction, refusals, headers."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from webviewer_kit import XSS, build, event_lines

from xactika.core.engine.api import Dealt, game_rules
from xactika.core.engine.views import visible
from xactika.frontends.web.viewer import CSP, viewer_app
from xactika.protocol.notation.text import format_event
from xactika.protocol.records.textform import read_record
from xactika.protocol.trust.signing import load_public_keys

if TYPE_CHECKING:
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore:.*httpx.*")  # TestClient's notice on httpx


def open_client(app: Any) -> TestClient:
    """Starlette's TestClient, imported here: importing it warns about httpx."""
    from starlette.testclient import TestClient

    return TestClient(app)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build(tmp_path_factory.mktemp("webviewer"))


@pytest.fixture(scope="module")
def client(served: tuple[Path, Path]) -> Iterator[TestClient]:
    folder, pub = served
    with open_client(viewer_app(folder, load_public_keys(pub))) as c:
        yield c


def record(client: TestClient, name: str, seat: str | None = None) -> dict:
    params = {"file": name} | ({"seat": seat} if seat is not None else {})
    r = client.get("/replay/api/record", params=params)
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize("name", ["x4.log", "x4.jsonl", "dix.log", "dix.jsonl"])
def test_omniscient_events_are_the_records_lines(client: TestClient, served: tuple[Path, Path],
                                                 name: str) -> None:
    data = record(client, name)
    assert [e["line"] for e in data["events"]] == event_lines(served[0] / name)
    assert data["finished"] is True
    hands = [h for e in data["events"] for h in e["hands"]]
    assert hands and all(h["cards"] is not None for h in hands)
    assert data["audit"]["summary"] == "clean and complete"
    assert data["audit"]["signature_status"] == "verified"
    assert data["audit"]["chain"] == "hash chain intact"
    assert data["audit"]["commitment"] == "seed commitment holds"


@pytest.mark.parametrize("name", ["x4.log", "dix.jsonl"])
def test_a_seat_sees_only_its_own_hand(client: TestClient, served: tuple[Path, Path],
                                       name: str) -> None:
    events = read_record(served[0] / name).events
    players = events[0].config.players
    for seat in range(players):
        data = record(client, name, str(seat))
        rules = game_rules(events[0].config.game)
        assert [e["line"] for e in data["events"]] == [
            format_event(visible(e, seat), rules) for e in events]
        for e in data["events"]:
            for h in e["hands"]:
                assert (h["cards"] is not None) == (h["seat"] == seat)
        # no other seat's dealt hand is anywhere in what the seat is sent before game-over
        before = json.dumps(data["events"][:-1])
        for e in events:
            if isinstance(e, Dealt):
                for other, hand in enumerate(e.hands):
                    if other != seat and hand:
                        assert ",".join(str(c) for c in hand) not in before
        assert "seed=" not in json.dumps(data["events"][:-1])


def test_the_texts_are_the_repls(client: TestClient) -> None:
    data = record(client, "x4.log")
    kinds = {e["kind"] for e in data["events"]}
    assert {"GameStarted", "Dealt", "BidMade", "TrickWon", "RoundScored", "GameOver"} <= kinds
    won = next(e for e in data["events"] if e["kind"] == "TrickWon")
    assert re.fullmatch(r"seat \d \(\w+\) wins trick 1", won["told"])
    assert won["said"] and "wins" in won["said"][0]
    # the viewer's sentences name cards as a player sees them, never by their code
    sentences = [t for e in data["events"] for t in [e["told"], *e["said"]]]
    assert not [t for t in sentences if re.search(r"(?<![0-9])[1-3]{4}(?![0-9])", t)]
    led = next(e for e in data["events"] if e["kind"] == "Led")
    assert re.fullmatch(r"seat \d \(\w+\) leads the \d+ \(\d balls?, \d cubes?, \d cones?, "
                        r"\d stars?\), calling \d \w+", led["told"]), led["told"]
    assert won["trick"]["won"] is True and len(won["trick"]["plays"]) == 4
    last = data["events"][-1]
    assert last["standings"].startswith("final standings")
    assert last["scored"] == len(data["scored"]) == 2
    assert data["rounds"] == [i for i, e in enumerate(data["events"]) if e["kind"] == "Dealt"]


def test_audit_verdict_without_the_key_and_after_tampering(served: tuple[Path, Path],
                                                           tmp_path: Path) -> None:
    folder, _ = served
    text = (folder / "x4.log").read_text()
    bid = re.search(r"^event (\d+) bid seat=(\d) bid=(\d+)", text, re.M)
    assert bid is not None
    (tmp_path / "changed.log").write_text(text.replace(
        bid.group(0), f"event {bid.group(1)} bid seat={bid.group(2)} bid={int(bid.group(3)) ^ 1}",
        1))
    (tmp_path / "x4.log").write_text(text)
    with open_client(viewer_app(tmp_path)) as c:  # no key: the signer is unknown here
        v = record(c, "x4.log")["audit"]
        assert v["signature_status"] == "untrusted" and not v["good"]
        v = record(c, "changed.log")["audit"]
        assert v["chain"] == "hash chain broken" and v["problems"] and not v["good"]


@pytest.mark.parametrize("name", [
    "../secret.log", "/etc/passwd", "m1/../../secret.log", "link.log", "linkdir/secret.log",
    "x4.log\x00", "", "m1/", "./../secret.log",
])
def test_no_file_outside_the_folder(served: tuple[Path, Path], name: str) -> None:
    folder, pub = served
    secret = folder.parent / "secret.log"
    if not secret.exists():
        secret.write_text((folder / "x4.log").read_text())
        os.symlink(secret, folder / "link.log")
        os.symlink(folder.parent, folder / "linkdir")
    with open_client(viewer_app(folder, load_public_keys(pub))) as c:
        r = c.get("/replay/api/record", params={"file": name})
        assert r.status_code in (400, 403, 404)
        assert set(r.json()) == {"error"} and "\n" not in r.json()["error"]
        listed = c.get("/replay").text
        assert "link.log" not in listed and "secret" not in listed


def test_unfinished_games_and_running_matches_are_not_served(client: TestClient) -> None:
    for seat in (None, "0", "2"):
        params = {"file": "half.log"} | ({"seat": seat} if seat else {})
        r = client.get("/replay/api/record", params=params)
        assert r.status_code == 403 and "not finished" in r.json()["error"]
        for name in ("running/games/g1.log", "resumed/games/d00001-t0-r0.log"):
            r = client.get("/replay/api/record", params=params | {"file": name})
            assert r.status_code == 403 and "still being played" in r.json()["error"]
    assert "running/" not in client.get("/replay").text
    assert "resumed/" not in client.get("/replay").text
    for folder in ("running", "resumed"):
        r = client.get("/match", params={"dir": folder})
        assert r.status_code == 403 and "still being played" in r.text
        assert folder not in client.get("/match").text


def test_an_upload_is_the_uploaders_own_and_bounded(served: tuple[Path, Path]) -> None:
    folder, pub = served
    body = (folder / "half.log").read_bytes()
    with open_client(viewer_app(folder, load_public_keys(pub), max_upload=len(body))) as c:
        r = c.post("/replay/api/upload", params={"name": "mine.log"}, content=body)
        assert r.status_code == 200, r.text
        data = r.json()
        assert data["finished"] is False and data["name"] == "mine.log"
        assert data["audit"]["status"] == "unfinished"
        r = c.post("/replay/api/upload", params={"seat": "1"}, content=body)
        assert r.status_code == 200
        assert [h["cards"] is not None for h in r.json()["events"][-1]["hands"]] == [
            False, True, False, False]
        r = c.post("/replay/api/upload", content=body + b"\n")
        assert r.status_code == 413 and r.json()["error"] == (
            f"the upload is larger than {len(body)} bytes")
    with open_client(viewer_app(None)) as c:
        r = c.post("/replay/api/upload", content=b"header game xactika\n" + b"x" * 70_000)
        assert r.status_code == 400 and "longer than" in r.json()["error"]
        r = c.post("/replay/api/upload", content=b"not a record\n")
        assert r.status_code == 400 and "\n" not in r.json()["error"]
        r = c.post("/replay/api/upload", params={"seat": "9"}, content=body)
        assert r.status_code == 400 and r.json()["error"] == "no seat 9: seats are 0 to 3"
        r = c.get("/replay/api/record", params={"file": "x4.log"})
        assert r.status_code == 404


def test_security_headers_and_no_inline_script(client: TestClient) -> None:
    for url in ("/replay", "/replay?file=x4.log", "/match", "/match?dir=m1",
                "/replay/api/record?file=x4.log", "/static/replay.js", "/static/viewer.css"):
        r = client.get(url)
        assert r.status_code == 200, url
        assert r.headers["content-security-policy"] == CSP
        assert "'unsafe-inline'" not in CSP and "script-src 'self'" in CSP
        assert r.headers["x-content-type-options"] == "nosniff"
        if r.headers["content-type"].startswith("text/html"):
            scripts = re.findall(r"<script\b[^>]*>", r.text)
            assert all("src=" in s for s in scripts)
            own = [s for s in scripts if "/static/langs.js" not in s]  # the switch's, on all
            assert bool(own) == url.startswith("/replay")
            assert not re.search(r"\son[a-z]+\s*=", r.text)
            assert "style=" not in r.text


def test_names_from_files_are_escaped(served: tuple[Path, Path]) -> None:
    folder, pub = served
    evil = folder.parent / "evil"
    evil.mkdir(exist_ok=True)
    (evil / f"{XSS}.log").write_text((folder / "xss.log").read_text())
    with open_client(viewer_app(evil, load_public_keys(pub))) as c:
        page = c.get("/replay").text
        assert XSS not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
        data = record(c, f"{XSS}.log")
        assert data["names"][1] == XSS  # JSON: the page shows it with textContent


def test_match_viewer(client: TestClient, served: tuple[Path, Path]) -> None:
    listing = client.get("/match").text
    assert 'href="/match?dir=m1"' in listing
    page = client.get("/match", params={"dir": "m1"}).text
    results = json.loads((served[0] / "m1" / "results.json").read_text())
    for bot in results["summary"]["bots"]:
        assert f'<th scope="row" class="name">{bot["name"]}</th>' in page
        assert f"{bot['points_per_hand']['mean']:.3f}" in page
    h2h = results["summary"]["head_to_head"]
    assert (f"Score of {h2h['a']} vs {h2h['b']}: {h2h['wins']} - {h2h['losses']} - "
            f"{h2h['draws']}") in page
    elo = h2h["elo"]
    assert ("Elo difference: " + (f"{elo:.1f}" if elo is not None else "")) in page
    assert "manifest intact: 4 games, signed by the server&#39;s key" in page
    games = re.findall(r'href="/replay\?file=(m1/games/[^"]+)"', page)
    assert len(games) == 4
    assert record(client, games[0])["finished"] is True
    assert client.get("/match", params={"dir": "../"}).status_code == 403
    assert client.get("/match", params={"dir": "nothere"}).status_code == 404


def test_bad_seat_is_one_line(client: TestClient) -> None:
    for seat, want in (("x", "bad seat 'x'"), ("4", "no seat 4: seats are 0 to 3")):
        r = client.get("/replay/api/record", params={"file": "x4.log", "seat": seat})
        assert r.status_code == 400 and r.json()["error"].startswith(want)


def test_a_hand_edited_results_file_makes_a_shorter_table() -> None:
    from xactika.frontends.web.matchdata import elo_lines, results_view

    bad = {"settings": "x", "summary": {"bots": [{"name": XSS, "games": "7",
                                                  "points_per_hand": {"mean": "1e9"}},
                                                 5],
                                        "head_to_head": {"a": "p", "b": "q", "wins": 3,
                                                         "losses": 0, "draws": 0,
                                                         "elo": None, "los": 1.0},
                                        "ratings": [{"name": "r", "mu": 25.0, "sigma": 1.0},
                                                    {"mu": "x"}]},
           "terminations": {"normal": 2, "odd": "x"}, "faults": "none"}
    view = results_view(bad)
    assert [b["name"] for b in view["bots"]] == [XSS, ""]
    assert view["bots"][0]["games"] is None and view["bots"][0]["points"] == "-"
    assert view["elo"] == ["Score of p vs q: 3 - 0 - 0 3",
                           "Elo difference: inf, LOS: 100.0 %, DrawRatio: 0.0 %"]
    assert [r["name"] for r in view["ratings"]] == ["r"]
    assert view["terminations"] == "normal 2" and view["faults"] == []
    assert results_view([])["bots"] == [] and elo_lines(None) == []


def test_the_match_viewer_in_german(client: TestClient) -> None:
    """Issue 32: the match viewer's own words come from the catalog (the bots' names, the
    Elo line and the manifest verdict are the runner's and the auditor's, as in a terminal)."""
    page = client.get("/match", params={"dir": "m1"},
                      headers={"accept-language": "de-DE,de;q=0.9"}).text
    assert '<html lang="de">' in page
    for german in ("Die Mittelwerte jedes Bots, darunter ihre 95-%-Intervalle",
                   "Siegesanteil", "mittlerer Rang", "Spiele auf", "Spielenden:"):
        assert german in page, german
    for english in ("Each bot's means", "win share", "mean rank", "games on", "Terminations"):
        assert english not in page, english
    listing = client.get("/match", headers={"accept-language": "de"}).text
    assert "Beendete Matches auf diesem Server" in listing


def test_each_timed_move_says_how_long_its_player_thought(client: TestClient,
                                                          served: tuple[Path, Path]) -> None:
    """A match's record has think.<seat> headers: the viewer says each timed move's time,
    in every seat's view (every seat saw how long the others took); an older record has
    none and says none."""
    name = sorted(p.name for p in (served[0] / "m1" / "games").glob("*.log"))[0]
    for seat in (None, "0", "1"):
        data = record(client, f"m1/games/{name}", seat)
        moves = [e for e in data["events"] if e["kind"] in ("BidMade", "Led", "Played")]
        took = r"seat \d \(\w+\) thought for (\d+ ms|\d+\.\d s)"
        assert moves and all(re.fullmatch(took, e["think"]) for e in moves), moves[0]["think"]
        assert all(e["think"] is None for e in data["events"] if e not in moves)
    assert all(e["think"] is None for e in record(client, "x4.log")["events"])
