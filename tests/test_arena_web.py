"""Issue 42: the arena's web pages and JSON API (``xactika web --arena DIR``): the same
standings as ``arena standings``, an entrant's history, opponents and faults, its games
opening in the replay viewer, and nothing else of the arena's folder; escaped names, a
clean 404, sets under way listed but never opened."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from arenawebkit import add_entrant, add_set, cli, ids, new_arena, played_arena

from xactika.frontends.arena import live
from xactika.frontends.arena.views import HISTORY_POINTS
from xactika.frontends.web.app import create_app
from xactika.protocol.net.server import Server

if TYPE_CHECKING:
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore:.*httpx.*")  # TestClient's notice on httpx
XSS = "<img src=x onerror=alert(1)>"


def open_client(folder: Path) -> TestClient:
    from starlette.testclient import TestClient

    return TestClient(create_app(Server(), arena=str(folder)).asgi,
                      base_url="http://127.0.0.1")


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return played_arena(tmp_path_factory.mktemp("arena-web") / "a")


@pytest.fixture(scope="module")
def client(season: Path) -> Iterator[TestClient]:
    with open_client(season) as c:
        yield c


def standings(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(cli("standings", str(folder), "--json"))
    return data


def test_the_json_is_the_standings_with_owners_and_fault_rates(
        client: TestClient, season: Path) -> None:
    r = client.get("/api/arena")
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    data = r.json()
    (want,) = standings(season)["ladders"]
    (got,) = data["ladders"]
    assert got["games"] == want["games"] > 0 and got["repeats"] == want["repeats"]
    assert [e["name"] for e in got["entrants"]] == [e["name"] for e in want["entrants"]]
    for g, w in zip(got["entrants"], want["entrants"], strict=True):
        assert {k: g[k] for k in w} == w
        assert g["fault_rate"] == round(g["faults"] / g["games"], 4)
        assert g["owner"] == {"ann": "alice", "bea": "bob", "cid": "carol"}.get(
            g["name"], g["name"])  # a house bot is its own owner
    assert data["playing"] == []  # the run has stopped: its sets are released
    assert 0 < len(data["recent"]) <= 20
    finished = [(g["finished"], g["set"], g["rotation"]) for g in data["recent"]]
    assert finished == sorted(finished, reverse=True)
    for g in data["recent"]:
        assert g["replay"] == "/replay?file=" + "arena%2F" + g["record"].replace("/", "%2F")


def test_an_entrant_has_its_history_opponents_and_games(client: TestClient,
                                                        season: Path) -> None:
    data = client.get("/api/arena/ann").json()
    assert data["name"] == "ann" and data["owner"] == "alice" and data["entry"] == "active"
    (lad,) = data["ladders"]
    row = next(e for e in standings(season)["ladders"][0]["entrants"] if e["name"] == "ann")
    assert {k: lad["rating"][k] for k in row} == row
    history = lad["history"]
    assert 1 <= len(history) <= HISTORY_POINTS
    assert [h["sets"] for h in history] == sorted({h["sets"] for h in history})
    last = history[-1]  # the last point is the batch fit over every finished set
    assert (last["mu"], last["sigma"]) == (row["mu"], row["sigma"])
    assert last["sets"] == standings(season)["ladders"][0]["sets"]
    together = sum(o["games"] for o in lad["opponents"])
    assert together == row["games"] * (3 - 1)
    for o in lad["opponents"]:
        assert o["ahead"] + o["behind"] + o["level"] == o["games"]
    assert data["recent"] and all("ann" in g["seats"] for g in data["recent"])
    assert all(g["seats"][g["seat"]] == "ann" for g in data["recent"])
    page = client.get("/arena/ann")
    assert page.status_code == 200
    html = page.text
    assert "<svg" in html and "<polyline" in html and 'role="img"' in html
    # no script of the arena's: the plot is drawn by the server (the one script is every
    # page's language switch, base.html's)
    assert re.findall(r"<script[^>]*>", html) == [
        '<script type="module" src="/static/langs.js">']
    assert "alice" in html and data["recent"][0]["replay"].replace("%2F", "%2F") in html
    assert "Content-Security-Policy".lower() in page.headers


def test_the_pages_speak_german(client: TestClient) -> None:
    en, de = client.get("/arena?lang=en").text, client.get("/arena?lang=de").text
    assert "Latest games" in en and "Latest games" not in de
    assert "Letzte Spiele" in de and '<html lang="de">' in de
    page = client.get("/arena/ann", headers={"accept-language": "de"}).text
    assert "Gegen jeden Gegner" in page and "Against each opponent" not in page
    # a fault rate's decimal comma in German, its point in English
    assert re.search(r"\d,\d&nbsp;%", de) and not re.search(r"\d\.\d&nbsp;%", de)
    assert re.search(r"\d\.\d&nbsp;%", en)


def test_a_listed_game_opens_in_the_replay_viewer(client: TestClient, season: Path) -> None:
    listed = client.get("/api/arena").json()["recent"][0]
    page = client.get(listed["replay"])
    assert page.status_code == 200
    name = listed["replay"].split("file=", 1)[1].replace("%2F", "/")
    r = client.get("/replay/api/record", params={"file": name})
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["names"] == listed["seats"] and data["finished"]
    assert data["audit"]["good"] and data["audit"]["signature_status"] == "verified"
    seen = client.get("/replay/api/record", params={"file": name, "seat": "0"}).json()
    assert seen["seat"] == 0  # a seat's view, as the viewer gives any record's


@pytest.mark.parametrize("name", [
    "arena/arena.key", "arena/arena.json", "arena/arena.db", "arena/ladders/main/manifest.txt",
    "arena/../arena.key", "arena/ladders/main/games/../../../arena.key", "arena//etc/passwd",
    "arena/ladders/main/ladder.json", "arena/%2e%2e/arena.key", "arena/"])
def test_nothing_but_a_finished_games_record_is_served(client: TestClient, season: Path,
                                                       name: str) -> None:
    r = client.get("/replay/api/record", params={"file": name})
    assert r.status_code in (403, 404), r.text
    key = (season / "arena.key").read_text()
    assert key.strip() not in r.text and "BEGIN" not in r.text


def test_a_database_that_names_a_path_outside_is_refused(tmp_path: Path) -> None:
    folder = new_arena(tmp_path / "a")
    secret = tmp_path / "secret.log"
    secret.write_text("event 0 deal ...\n")
    (folder / "ladders" / "main" / "games" / "link.log").symlink_to(secret)
    lineup = ids(folder, "ann", "bea", "cid")
    add_set(folder, lineup, record="../secret.log")
    add_set(folder, lineup, record="ladders/main/games/link.log")
    add_set(folder, lineup, record=str(secret))
    with open_client(folder) as c:
        for record in ("../secret.log", "ladders/main/games/link.log", str(secret)):
            r = c.get("/replay/api/record", params={"file": "arena/" + record})
            assert r.status_code in (403, 404), (record, r.text)
            assert "deal" not in r.text


def test_a_set_under_way_is_listed_but_never_opened(tmp_path: Path,
                                                    arena_db: str | None) -> None:
    folder = new_arena(tmp_path / "a", arena_db)
    lineup = ids(folder, "ann", "bea", "cid")
    done = add_set(folder, lineup)
    going = add_set(folder, lineup, played=1, claimed=True)
    with open_client(folder) as c:
        data = c.get("/api/arena").json()
        assert data["playing"] == [{"ladder": "main", "set": going,
                                    "entrants": ["ann", "bea", "cid"], "rotation": 2,
                                    "rotations": 3, "watch": None,
                                    "watch_closed": live.WAITING}]  # no live file
        assert {g["set"] for g in data["recent"]} == {done}
        assert data["ladders"][0]["sets"] == 1 and data["ladders"][0]["games"] == 3
        ann = c.get("/api/arena/ann").json()
        assert {g["set"] for g in ann["recent"]} == {done}
        r = c.get("/replay/api/record",
                  params={"file": f"arena/ladders/main/games/d{going}-t0-r0.log"})
        assert r.status_code == 404 and "every seating" in r.json()["error"]
        html = c.get("/arena").text
        assert f"set {going}: seating 2 of 3" in html


def test_names_and_faults_with_markup_are_escaped(tmp_path: Path) -> None:
    folder = new_arena(tmp_path / "a")
    bad = add_entrant(folder, XSS, f"<b>{XSS}</b>")
    lineup = [bad, *ids(folder, "ann", "bea")]
    add_set(folder, lineup, fault=f"played {XSS}<script>alert(2)</script>")
    with open_client(folder) as c:
        pages = [c.get("/arena"), c.get("/arena/" + XSS), c.get("/arena/ann"),
                 c.get("/arena/bea")]
        for page in pages:
            assert page.status_code == 200
            assert XSS not in page.text and "<script>alert" not in page.text
            assert "&lt;img src=x onerror=alert(1)&gt;" in page.text
        assert c.get("/api/arena/" + XSS).json()["owner"] == f"<b>{XSS}</b>"
        faults = c.get("/api/arena/bea").json()["ladders"][0]["faults"]
        assert faults and faults[0]["reason"] == "illegal"


def test_a_missing_entrant_is_a_clean_404(client: TestClient) -> None:
    for name in ("nobody", XSS, "a" * 300):
        page = client.get("/arena/" + name)
        assert page.status_code == 404 and "<html" in page.text
        assert XSS not in page.text and "Traceback" not in page.text
        api = client.get("/api/arena/" + name)
        assert api.status_code == 404 and api.json()["error"].startswith("no entrant")
    assert client.get("/arena/nobody?lang=de").text.count("Kein Teilnehmer") == 1


def test_web_refuses_a_folder_that_is_no_arena_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from xactika.frontends.web import serve

    rc = serve.main(["--port", "0", "--out", str(tmp_path / "out"), "--arena",
                     str(tmp_path / "none")])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "is not an arena" in err
    assert re.match(r"xactika web: ", err)


def test_a_history_point_is_the_batch_fit_over_the_sets_finished_by_then() -> None:
    import random

    from xactika.frontends.arena.standings import Counted, LadderInfo, ladder_table
    from xactika.frontends.arena.views import ArenaView, Played

    info = LadderInfo("main", "xactika", "bid", 3, 1)
    rng = random.Random(5)
    games = []
    for s in range(1, 61):  # 60 sets: a step of 4 keeps the points within the bound
        lineup = rng.sample(["a", "b", "c", "d", "e"], 3)
        for r in range(3):
            totals = tuple(rng.randint(0, 9) for _ in range(3))
            games.append(Played(len(games) + 1, 1000.0 + s, f"r{len(games)}", Counted(
                "main", s, r, tuple(lineup[r:] + lineup[:r]), False, frozenset(), totals,
                (totals.index(max(totals)),), 1, (), False)))
    view = ArenaView(None)  # type: ignore[arg-type]  # no database: the games are given
    history = view.history(info, games)
    assert 2 <= len(history) <= HISTORY_POINTS
    assert [h["sets"] for h in history] == [*range(4, 60, 4), 60]
    for h in (history[0], history[5], history[-1]):
        table = ladder_table(info, [p.counted for p in games if p.counted.set <= h["sets"]])
        assert h["entrants"] == {r["name"]: {k: r[k] for k in ("mu", "sigma", "low", "high")}
                                 for r in table["entrants"]}
        assert h["at"] == 1000.0 + h["sets"]
    shuffled = list(games)
    random.Random(1).shuffle(shuffled)
    assert ArenaView(None).history(info, shuffled) == history  # type: ignore[arg-type]
    fewer = view.history(info, [p for p in games if p.counted.set <= 59])
    assert [h["sets"] for h in fewer] == [*range(4, 60, 4), 59]
    assert fewer[:-1] == history[:-1]
