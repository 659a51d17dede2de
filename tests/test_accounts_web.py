"""Issue 45: accounts on the web (``xactika web --site DIR``) on SQLite and PostgreSQL,
through Starlette's TestClient: sign-up, login and logout with an HttpOnly SameSite
session cookie, and the attacks: password guessing (rate limits), name enumeration (one
answer), session fixation (a new session at login), CSRF (the Origin check) and XSS in
names; the operator's ``xactika account``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import sqlalchemy as sa

from xactika.frontends.accounts import identity
from xactika.frontends.accounts.store import accounts, sessions
from xactika.frontends.cli import main as cli_main
from xactika.frontends.web.accountpages import (
    ATTEMPTS_PER_ADDRESS,
    ATTEMPTS_PER_NAME,
    COOKIE,
    WINDOW,
    AccountPages,
)
from xactika.frontends.web.app import create_app
from xactika.protocol.net.server import Server

if TYPE_CHECKING:
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore:.*httpx.*")
SITE = "http://127.0.0.1"
SAME = {"origin": SITE}
PASSWORD = "correct horse battery"


class Clock:
    """The rate limits' clock, moved by the test instead of waited for."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def site(tmp_path: Path, arena_db: str | None, clock: Clock,
         monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TestClient, AccountPages]]:
    from starlette.testclient import TestClient

    made: list[AccountPages] = []
    real = AccountPages.__init__

    def with_clock(self: AccountPages, folder: str | Path, db: str | None = None,
                   **kw: object) -> None:
        real(self, folder, db, clock=clock)
        made.append(self)

    monkeypatch.setattr(AccountPages, "__init__", with_clock)
    (tmp_path / "out").mkdir()
    app = create_app(Server(out=tmp_path / "out"), site=str(tmp_path / "site"),
                     site_db=arena_db)
    with TestClient(app.asgi, base_url=SITE) as client:
        yield client, made[0]


def signup(client: TestClient, name: str, password: str = PASSWORD,
           headers: dict[str, str] | None = None) -> object:
    return client.post("/signup", data={"name": name, "password": password},
                       headers=SAME if headers is None else headers, follow_redirects=False)


def login(client: TestClient, name: str, password: str = PASSWORD) -> object:
    return client.post("/login", data={"name": name, "password": password}, headers=SAME,
                       follow_redirects=False)


def plant(client: TestClient, value: str) -> None:
    """The session cookie as an attacker would set it in the victim's browser."""
    client.cookies.clear()
    client.cookies.set(COOKIE, value, domain="127.0.0.1", path="/")


def error_of(r: object) -> str:
    found = re.search(r'<p class="error"[^>]*>(.*?)</p>', r.text)  # type: ignore[attr-defined]
    return found.group(1) if found else ""


def test_sign_up_log_out_and_log_in(site: tuple[TestClient, AccountPages]) -> None:
    client, pages = site
    r = signup(client, "Ann")
    assert r.status_code == 303 and r.headers["location"] == "/people/Ann"
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie
    assert "SameSite=lax" in cookie and "Secure" not in cookie  # plain HTTP here
    assert client.get("/api/me").json() == {"name": "Ann"}
    assert "This is you." in client.get("/people/ann").text  # names compared folded
    r = client.post("/logout", headers=SAME, follow_redirects=False)
    assert r.status_code == 303 and client.get("/api/me").json() == {"name": None}
    assert login(client, "ＡＮＮ").status_code == 303  # NFKC, case folded: the same name
    assert client.get("/api/me").json() == {"name": "Ann"}
    with pages.engine.connect() as conn:  # only a digest of the session is kept
        kept = conn.execute(sa.select(sessions.c.id)).scalars().all()
        digest = conn.execute(sa.select(accounts.c.hash)).scalar_one()
    assert client.cookies[COOKIE] not in kept and digest.startswith("$argon2id$")


def test_a_look_alike_a_reserved_or_a_bad_name_is_refused(
        site: tuple[TestClient, AccountPages]) -> None:
    client, _ = site
    assert signup(client, "ann").status_code == 303
    client.cookies.clear()
    taken = [error_of(signup(client, name)) for name in ("ANN", "ａnn", "admin", "strong",
                                                          "beginner", "house-x")]
    assert set(taken) == {"that name is taken or reserved"}  # one answer for both
    for name in ("a", "ann bea", "x" * 21, "(you)", "ann,bea", "-ann"):
        r = signup(client, name)
        assert r.status_code == 400 and "letters, digits" in error_of(r), name
    assert "8 to 256" in error_of(signup(client, "bea", "short"))
    assert client.get("/api/me").json() == {"name": None}


def test_a_wrong_name_and_a_wrong_password_get_one_answer(
        site: tuple[TestClient, AccountPages]) -> None:
    client, _ = site
    signup(client, "ann")
    client.cookies.clear()
    wrong_password, no_such_name = login(client, "ann", "wrong password"), login(client, "zed")
    assert wrong_password.status_code == no_such_name.status_code == 400
    assert error_of(wrong_password) == error_of(no_such_name) == "wrong name or password"
    strip = re.compile(r'value="[^"]*"')  # the form echoes the name typed: nothing else differs
    assert strip.sub("", wrong_password.text) == strip.sub("", no_such_name.text)
    assert COOKIE not in client.cookies


def test_password_guessing_is_rate_limited_per_name_and_per_address(
        site: tuple[TestClient, AccountPages], clock: Clock) -> None:
    client, pages = site
    signup(client, "ann")
    client.cookies.clear()
    for _ in range(ATTEMPTS_PER_NAME):
        assert login(client, "ann", "guess").status_code == 400
    limited = login(client, "ann")  # even the right password now waits
    assert limited.status_code == 429 and "too many attempts" in error_of(limited)
    assert login(client, "zed").status_code == 400  # another name is not limited ...
    for _ in range(ATTEMPTS_PER_NAME):
        login(client, "nobody", "guess")
    assert login(client, "nobody").status_code == 429  # ... and a name no one has is, alike
    clock.now += WINDOW + 1
    assert login(client, "ann").status_code == 303  # the window passed
    client.cookies.clear()
    for n in range(ATTEMPTS_PER_ADDRESS):
        pages.by_name.seen.clear()  # one address trying many names
        login(client, f"name{n}", "guess")
    assert login(client, "ann").status_code == 429
    assert signup(client, "cid").status_code == 429


def test_a_session_planted_before_login_opens_nothing(
        site: tuple[TestClient, AccountPages]) -> None:
    """Session fixation: a cookie an attacker set before the victim logs in is replaced
    by a new one, and the old value opens no session."""
    client, _ = site
    signup(client, "ann")
    first = client.cookies[COOKIE]
    client.post("/logout", headers=SAME)
    plant(client, first)  # an attacker's planted (and now dead) value
    assert client.get("/api/me").json() == {"name": None}
    login(client, "ann")
    second = client.cookies[COOKIE]
    assert second != first
    plant(client, first)
    assert client.get("/api/me").json() == {"name": None}
    plant(client, "made-up")
    assert client.get("/api/me").json() == {"name": None}


@pytest.mark.parametrize("origin", [None, "http://evil.example", "https://127.0.0.1"])
def test_cross_site_posts_are_refused(site: tuple[TestClient, AccountPages],
                                      origin: str | None) -> None:
    """CSRF: sign-up, login, logout, a rated table and the seats' tokens need this site's
    Origin; a refused logout leaves the session."""
    client, _ = site
    signup(client, "ann")
    headers = {"origin": origin} if origin else {}
    assert signup(client, "bea", headers=headers).status_code == 403
    assert client.post("/login", data={"name": "ann", "password": PASSWORD},
                       headers=headers, follow_redirects=False).status_code == 403
    assert client.post("/logout", headers=headers).status_code == 403
    assert client.get("/api/me").json() == {"name": "ann"}
    assert client.post("/api/me/seats", headers=headers).status_code == 403
    r = client.post("/api/rated", json={"seats": ["open", "1"], "players": 2},
                    headers=headers)
    assert r.status_code == 400 and "this site" in r.json()["error"]


def test_names_are_escaped_everywhere(site: tuple[TestClient, AccountPages]) -> None:
    """XSS: a name cannot hold markup, and the markup typed is shown as text."""
    client, _ = site
    xss = "<script>alert(1)</script>"
    r = signup(client, xss)
    assert r.status_code == 400 and "<script>alert" not in r.text and "&lt;script&gt;" in r.text
    r = client.get("/people/" + "%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
    assert r.status_code == 404 and "<img" not in r.text and "&lt;img" in r.text
    r = client.get("/login?next=//evil.example")
    assert 'action="/login"' in r.text  # only this site's own paths after login
    signup(client, "ann")
    for target in ("//evil.example", "https://evil.example", "/\\evil.example"):
        r = client.post("/login", params={"next": target}, headers=SAME,
                        data={"name": "ann", "password": PASSWORD}, follow_redirects=False)
        assert r.headers["location"] == "/people/ann", target
    r = client.post("/login", params={"next": "/table/3"}, headers=SAME,
                    data={"name": "ann", "password": PASSWORD}, follow_redirects=False)
    assert r.headers["location"] == "/table/3"


def test_seats_follow_their_person_to_another_device(
        site: tuple[TestClient, AccountPages]) -> None:
    client, _ = site
    signup(client, "ann")
    made = client.post("/api/rated", json={"seats": ["open", "1", "open"], "players": 3,
                                           "rounds": 1}, headers=SAME).json()
    number, token = made["table"]["id"], made["invites"]["0"]
    assert made["table"]["rated"] and made["table"]["on_timeout"] == "forfeit"
    assert made["table"]["seats"][0]["name"] == "ann"
    client.cookies.clear()
    # a guest cannot take a rated table's seat, nor open a rated table
    assert "sign in" in client.post(f"/api/tables/{number}/take", json={"seat": 2},
                                    headers=SAME).json()["error"]
    assert client.post("/api/rated", json={}, headers=SAME).status_code == 401
    assert client.post("/api/me/seats", headers=SAME).status_code == 401
    login(client, "ann")  # "another device": a fresh client, the same person
    (seat,) = client.post("/api/me/seats", headers=SAME).json()["seats"]
    assert (seat["table"], seat["seat"], seat["token"]) == (number, 0, token)
    assert f"/table/{number}#seat={token}" in client.get("/people/ann").text
    assert token not in client.get("/api/people/ann").text  # the JSON has no token
    client.post("/logout", headers=SAME)
    assert token not in client.get("/people/ann").text  # nor the page, to anyone else
    signup(client, "bea")
    assert client.post("/api/me/seats", headers=SAME).json() == {"seats": []}
    taken = client.post(f"/api/tables/{number}/take", json={"seat": 2, "name": "mallory"},
                        headers=SAME).json()
    assert taken["seat"] == 2
    listed = client.get("/api/tables").json()
    assert [s["name"] for s in listed[0]["seats"]][::2] == ["ann", "bea"]  # their own names


def test_the_operator_lists_disables_and_resets(
        site: tuple[TestClient, AccountPages], tmp_path: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    client, pages = site
    signup(client, "ann")
    folder = str(tmp_path / "site")
    capsys.readouterr()
    assert cli_main(["account", "list", folder]) == 0
    assert capsys.readouterr().out.startswith("ann\tactive\t")
    assert cli_main(["account", "disable", folder, "ann"]) == 0
    assert client.get("/api/me").json() == {"name": None}  # its sessions ended
    assert login(client, "ann").status_code == 400
    assert cli_main(["account", "disable", folder, "ann", "--enable"]) == 0
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("a brand new password\n"))
    assert cli_main(["account", "reset", folder, "ann"]) == 0
    assert login(client, "ann").status_code == 400
    assert login(client, "ann", "a brand new password").status_code == 303
    monkeypatch.setattr("sys.stdin", io.StringIO("another password\n"))
    assert cli_main(["account", "create", folder, "ANN"]) == 2
    assert "taken or reserved" in capsys.readouterr().err
    assert cli_main(["account", "list", str(tmp_path / "nowhere")]) == 2
    assert "not a site folder" in capsys.readouterr().err
    assert identity.find(pages.engine, "ann") is not None


def test_a_changed_hash_is_rehashed_at_login(site: tuple[TestClient, AccountPages]) -> None:
    from argon2 import PasswordHasher

    client, pages = site
    signup(client, "ann")
    weak = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1).hash(PASSWORD)
    with pages.engine.begin() as conn:
        conn.execute(sa.update(accounts).values(hash=weak))
    assert login(client, "ann").status_code == 303
    with pages.engine.connect() as conn:
        now = conn.execute(sa.select(accounts.c.hash)).scalar_one()
    assert now != weak and not identity.HASHER.check_needs_rehash(now)


def test_the_forms_speak_the_readers_language_and_post_with_their_origin(
        site: tuple[TestClient, AccountPages]) -> None:
    """Under the site's ``no-referrer`` a browser sends ``Origin: null`` with a form's
    POST, which the Origin check refuses: the form pages say ``same-origin``."""
    client, _ = site
    for path in ("/signup", "/login"):
        assert client.get(path).headers["referrer-policy"] == "same-origin"
    signup(client, "ann")
    assert client.get("/people/ann").headers["referrer-policy"] == "same-origin"  # logout
    assert client.get("/").headers["referrer-policy"] == "no-referrer"  # the rest as before
    client.cookies.clear()
    r = client.post("/login?lang=de", data={"name": "zed", "password": "x"}, headers=SAME)
    assert error_of(r) == "falscher Name oder falsches Passwort"
    r = client.post("/signup?lang=de", data={"name": "ANN", "password": PASSWORD},
                    headers=SAME)
    assert error_of(r) == "dieser Name ist vergeben oder reserviert"


def test_a_persons_page_draws_the_rating_over_time(
        site: tuple[TestClient, AccountPages]) -> None:
    from xactika.frontends.accounts import ratings

    client, pages = site
    signup(client, "ann")
    assert "<svg" not in client.get("/people/ann").text  # no game: no plot
    for n, placed in enumerate([(1, 2), (2, 1), (1, 2)]):
        ratings.apply(pages.engine, ratings.RatedGame(
            f"table-{n}.log", "xactika", "bid", ("ann", "strong"), (True, False), placed,
            (3, 1) if placed[0] == 1 else (1, 3), float(n)))
    page = client.get("/people/ann").text
    points = re.search(r'<polyline class="mu" points="([^"]+)"', page)
    assert points is not None and len(points.group(1).split()) == 3
    assert 'href="/rated/1/record"' in page and "replay?file=table-0.log" in page
    shown = client.get("/api/people/ann").json()["ratings"][0]
    assert shown["games"] == 3 and shown["low"] < shown["rating"] < shown["high"]


def test_bad_site_options_are_one_line(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from xactika.frontends.web import serve

    assert serve.main(["--site-db", "sqlite:///x.db", "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == ("xactika web: --site-db is the database of a --site "
                                       "DIR: give both\n")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "other").write_text("x")
    assert serve.main(["--site", str(tmp_path / "full"), "--out", str(tmp_path / "o"),
                       "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("xactika web: ") and "not empty" in err and err.count("\n") == 1
