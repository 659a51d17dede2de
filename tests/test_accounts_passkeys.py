"""Issue 45: passkeys (py_webauthn) on the accounts' pages, on SQLite and PostgreSQL,
against a software authenticator (ES256, 'none' attestation, built here with
``cryptography`` and ``cbor2``): registering one while signed in and logging in with it;
offered only on HTTPS or localhost; a challenge used once and bound to the cookie it was
given with; a replayed or stale-counted assertion refused."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cbor2  # py_webauthn's own dependency (the test extra has both)
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from xactika.frontends.accounts import passkeys
from xactika.frontends.web.accountpages import COOKIE
from xactika.frontends.web.app import create_app
from xactika.protocol.net.server import Server

if TYPE_CHECKING:
    from starlette.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore:.*httpx.*")
SITE = "http://localhost"
SAME = {"origin": SITE}


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Authenticator:
    """One passkey on a software authenticator: what a browser posts back."""

    def __init__(self, origin: str = SITE) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.id = secrets.token_bytes(16)
        self.origin = origin
        self.count = 0
        self.user: bytes = b""

    def _client_data(self, kind: str, challenge: str) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge, "origin": self.origin,
                           "crossOrigin": False}).encode()

    def _auth_data(self, rp_id: str, flags: int, extra: bytes = b"") -> bytes:
        return (hashlib.sha256(rp_id.encode()).digest() + bytes([flags])
                + self.count.to_bytes(4, "big") + extra)

    def create(self, options: dict[str, Any]) -> dict[str, Any]:
        numbers = self.key.public_key().public_numbers()
        cose = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"),
                            -3: numbers.y.to_bytes(32, "big")})
        self.user = unb64(options["user"]["id"])
        attested = bytes(16) + len(self.id).to_bytes(2, "big") + self.id + cose
        auth = self._auth_data(options["rp"]["id"], 0x01 | 0x04 | 0x40, attested)
        return {"id": b64(self.id), "rawId": b64(self.id), "type": "public-key",
                "response": {"clientDataJSON": b64(self._client_data(
                    "webauthn.create", options["challenge"])),
                    "attestationObject": b64(cbor2.dumps(
                        {"fmt": "none", "attStmt": {}, "authData": auth}))}}

    def get(self, options: dict[str, Any], count: int | None = None) -> dict[str, Any]:
        self.count = self.count + 1 if count is None else count
        auth = self._auth_data(options["rpId"], 0x01 | 0x04)
        client = self._client_data("webauthn.get", options["challenge"])
        signature = self.key.sign(auth + hashlib.sha256(client).digest(),
                                  ec.ECDSA(hashes.SHA256()))
        return {"id": b64(self.id), "rawId": b64(self.id), "type": "public-key",
                "response": {"clientDataJSON": b64(client), "authenticatorData": b64(auth),
                             "signature": b64(signature), "userHandle": b64(self.user)}}


@pytest.fixture
def client(tmp_path: Path, arena_db: str | None) -> Iterator[TestClient]:
    from starlette.testclient import TestClient

    (tmp_path / "out").mkdir()
    app = create_app(Server(out=tmp_path / "out"), site=str(tmp_path / "site"),
                     site_db=arena_db)
    with TestClient(app.asgi, base_url=SITE) as made:
        yield made


def signed_up(client: TestClient, name: str = "Ann") -> None:
    r = client.post("/signup", data={"name": name, "password": "correct horse battery"},
                    headers=SAME, follow_redirects=False)
    assert r.status_code == 303


def registered(client: TestClient, device: Authenticator) -> dict[str, Any]:
    options = client.post("/api/passkeys/register/options", headers=SAME).json()
    answer = client.post("/api/passkeys/register", json=device.create(options), headers=SAME)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def log_in(client: TestClient, device: Authenticator, **kw: Any) -> Any:
    options = client.post("/api/passkeys/login/options", headers=SAME).json()
    assert "allowCredentials" not in options or options["allowCredentials"] == []
    return client.post("/api/passkeys/login", json=device.get(options, **kw), headers=SAME)


def test_a_passkey_registered_on_ones_page_logs_in(client: TestClient) -> None:
    assert 'data-passkey="login"' in client.get("/login").text
    assert 'data-passkey' not in client.get("/signup").text
    signed_up(client)
    signed_up(client, "Bob")  # now Bob's: Ann's page offers him nothing
    assert "data-passkey" not in client.get("/people/Ann").text
    client.post("/login", data={"name": "Ann", "password": "correct horse battery"},
                headers=SAME)
    assert 'data-passkey="register"' in client.get("/people/Ann").text
    device = Authenticator()
    assert registered(client, device) == {"passkeys": 1}
    client.post("/logout", headers=SAME)
    client.cookies.clear()
    assert client.get("/api/me").json() == {"name": None}
    r = log_in(client, device)
    assert r.status_code == 200 and r.json()["name"] == "Ann", r.text
    assert r.headers["set-cookie"].count(f"{COOKIE}=") == 1
    assert client.get("/api/me").json() == {"name": "Ann"}


def test_an_assertion_is_used_once_and_its_count_must_grow(client: TestClient) -> None:
    signed_up(client)
    device = Authenticator()
    registered(client, device)
    client.cookies.clear()
    options = client.post("/api/passkeys/login/options", headers=SAME).json()
    answer = device.get(options, count=0)  # many passkeys count nothing: the challenge
    login_cookie = client.cookies.get("xactika_passkey")  # alone keeps out a replay
    assert client.post("/api/passkeys/login", json=answer, headers=SAME).status_code == 200
    client.cookies.clear()
    replayed = client.post("/api/passkeys/login", json=answer,  # its cookie, as it was
                           headers={**SAME, "cookie": f"xactika_passkey={login_cookie}"})
    assert replayed.status_code == 400 and client.get("/api/me").json() == {"name": None}
    client.cookies.clear()
    assert log_in(client, device, count=5).status_code == 200
    client.cookies.clear()
    # a new challenge, an old counter: a cloned authenticator
    assert log_in(client, device, count=3).status_code == 400
    assert client.get("/api/me").json() == {"name": None}
    assert log_in(client, device, count=6).status_code == 200  # the real one, counting on


def test_a_challenge_is_bound_to_the_cookie_it_was_given_with(client: TestClient) -> None:
    signed_up(client)
    device = Authenticator()
    registered(client, device)
    client.cookies.clear()
    options = client.post("/api/passkeys/login/options", headers=SAME).json()
    client.cookies.clear()  # another browser answers this one's challenge
    client.post("/api/passkeys/login/options", headers=SAME)
    r = client.post("/api/passkeys/login", json=device.get(options), headers=SAME)
    assert r.status_code == 400 and client.get("/api/me").json() == {"name": None}
    # registering: the challenge is the session's; another session of Ann's cannot use it
    client.cookies.clear()
    assert log_in(client, device).status_code == 200
    asked = client.post("/api/passkeys/register/options", headers=SAME).json()
    client.cookies.clear()
    client.post("/login", data={"name": "Ann", "password": "correct horse battery"},
                headers=SAME)
    r = client.post("/api/passkeys/register", json=Authenticator().create(asked),
                    headers=SAME)
    assert r.status_code == 400 and "expired" in r.json()["error"]


def test_a_forged_or_foreign_answer_logs_nobody_in(client: TestClient) -> None:
    signed_up(client)
    device = Authenticator()
    registered(client, device)
    client.cookies.clear()
    stranger = Authenticator()  # never registered
    assert log_in(client, stranger).status_code == 400
    other_site = Authenticator(origin="https://evil.example")
    other_site.key, other_site.id, other_site.count = device.key, device.id, 50
    assert log_in(client, other_site).status_code == 400
    forger = Authenticator()
    forger.id, forger.count = device.id, 60  # the id known, not the key
    assert log_in(client, forger).status_code == 400
    assert client.get("/api/me").json() == {"name": None}
    assert client.post("/api/passkeys/register/options", headers=SAME).status_code == 401
    assert client.post("/api/passkeys/login/options").status_code == 403  # no Origin


@pytest.mark.parametrize(("scheme", "host", "ok"), [
    ("https", "xactika.example", True), ("http", "localhost", True),
    ("http", "play.localhost", True), ("http", "xactika.example", False),
    ("https", "192.168.1.5", False), ("http", "127.0.0.1", False),
    ("https", "[::1]", False), ("https", "table.local", False)])
def test_passkeys_are_offered_only_where_browsers_use_them(scheme: str, host: str,
                                                           ok: bool) -> None:
    assert passkeys.available(scheme, host) is ok


def test_a_lan_address_keeps_passwords(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    (tmp_path / "out").mkdir()
    app = create_app(Server(out=tmp_path / "out"), site=str(tmp_path / "site"))
    with TestClient(app.asgi, base_url="http://127.0.0.1") as lan:
        r = lan.post("/api/passkeys/login/options", headers={"origin": "http://127.0.0.1"})
        assert r.status_code == 404 and "password" in r.json()["error"]
        assert "data-passkey" not in lan.get("/login").text
        assert "passkeys.js" not in lan.get("/login").text
