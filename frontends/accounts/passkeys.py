"""Passkeys (WebAuthn, py_webauthn): an account registers one while signed in, and logs in
with it instead of its password.

Offered only where browsers allow it: a page served on HTTPS, or on ``localhost`` (an IP
address or a ``.local`` name is refused by browsers, so a LAN server keeps passwords).
Each challenge is bound to the cookie it was asked with (the session's for registering,
a login's own short-lived cookie for logging in: its SHA-256 only is stored), given out
once, and taken (deleted) by the one answer that may use it, valid or not; a credential's
sign count must grow, as py_webauthn checks. Logging in asks for a discoverable credential
(no list of an account's credentials), so the options tell nothing about any name.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from xactika.frontends.accounts.identity import Account, AccountError
from xactika.frontends.accounts.store import accounts, passkey_challenges, passkeys
from xactika.frontends.i18n import _

CHALLENGE_SECONDS = 300.0
RP_NAME = "xactika"
REGISTER, LOGIN = "register", "login"


def available(scheme: str, host: str | None) -> bool:
    """Whether a browser will use a passkey on this page: a name (not an IP address nor
    a ``.local`` one) on HTTPS, or localhost."""
    host = (host or "").lower().rstrip(".")
    try:
        ipaddress.ip_address(host.strip("[]"))
        return False
    except ValueError:
        pass
    if not host or host.endswith(".local"):
        return False
    return scheme == "https" or host == "localhost" or host.endswith(".localhost")


def _binding(purpose: str, cookie: str) -> str:
    return purpose + ":" + hashlib.sha256(cookie.encode("utf-8", "replace")).hexdigest()


def _give(engine: Engine, binding: str, challenge: bytes) -> None:
    from webauthn.helpers import bytes_to_base64url

    now = time.time()
    with engine.begin() as conn:
        conn.execute(sa.delete(passkey_challenges).where(passkey_challenges.c.expires < now))
        conn.execute(sa.delete(passkey_challenges).where(
            passkey_challenges.c.binding == binding))  # one outstanding per cookie
        conn.execute(sa.insert(passkey_challenges).values(
            binding=binding, challenge=bytes_to_base64url(challenge),
            expires=now + CHALLENGE_SECONDS))


def _take(engine: Engine, binding: str) -> bytes:
    """The challenge given to this cookie, deleted now: one answer uses it, ever."""
    from webauthn.helpers import base64url_to_bytes

    with engine.begin() as conn:
        row = conn.execute(sa.select(passkey_challenges).where(
            passkey_challenges.c.binding == binding)).first()
        if row is not None:
            gone = conn.execute(sa.delete(passkey_challenges).where(
                passkey_challenges.c.binding == binding,
                passkey_challenges.c.challenge == row.challenge)).rowcount
    if row is None or gone != 1 or row.expires < time.time():
        raise AccountError(_("that passkey request has expired: try again"))
    return base64url_to_bytes(row.challenge)


def registration_options(engine: Engine, account: Account, session: str, rp_id: str) -> str:
    """The options for ``navigator.credentials.create`` (JSON), their challenge bound to
    this session."""
    from webauthn import generate_registration_options, options_to_json
    from webauthn.helpers import base64url_to_bytes
    from webauthn.helpers.structs import (
        AuthenticatorSelectionCriteria,
        PublicKeyCredentialDescriptor,
        ResidentKeyRequirement,
        UserVerificationRequirement,
    )

    with engine.connect() as conn:
        held = [r.id for r in conn.execute(sa.select(passkeys.c.id).where(
            passkeys.c.account_id == account.id))]
    options = generate_registration_options(
        rp_id=rp_id, rp_name=RP_NAME, user_name=account.name,
        user_id=str(account.id).encode(),
        exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(c))
                             for c in held],
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED))
    _give(engine, _binding(REGISTER, session), options.challenge)
    return options_to_json(options)


def register(engine: Engine, account: Account, session: str, credential: dict[str, Any],
             rp_id: str, origin: str) -> None:
    """A new passkey of the account, if the answer is to this session's challenge."""
    from webauthn import verify_registration_response
    from webauthn.helpers import bytes_to_base64url
    from webauthn.helpers.exceptions import WebAuthnException

    challenge = _take(engine, _binding(REGISTER, session))
    try:
        found = verify_registration_response(
            credential=credential, expected_challenge=challenge, expected_rp_id=rp_id,
            expected_origin=origin)
    except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
        raise AccountError(_("the passkey was not accepted: {why}").format(
            why=str(exc)[:200])) from None
    try:
        with engine.begin() as conn:
            conn.execute(sa.insert(passkeys).values(
                id=bytes_to_base64url(found.credential_id), account_id=account.id,
                public_key=found.credential_public_key, sign_count=found.sign_count,
                created=time.time()))
    except sa.exc.IntegrityError:
        raise AccountError(_("that passkey is registered already")) from None


def login_options(engine: Engine, cookie: str, rp_id: str) -> str:
    """The options for ``navigator.credentials.get`` (JSON): any passkey of this site."""
    from webauthn import generate_authentication_options, options_to_json

    options = generate_authentication_options(rp_id=rp_id)
    _give(engine, _binding(LOGIN, cookie), options.challenge)
    return options_to_json(options)


def login(engine: Engine, cookie: str, credential: dict[str, Any], rp_id: str,
          origin: str) -> Account | None:
    """The account whose passkey answered this login's challenge, or None (one answer
    for an unknown credential, a bad signature, a replay or a disabled account)."""
    from webauthn import verify_authentication_response
    from webauthn.helpers.exceptions import WebAuthnException

    challenge = _take(engine, _binding(LOGIN, cookie))
    key = str(credential.get("id", ""))[:700] if isinstance(credential, dict) else ""
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(passkeys, accounts.c.name, accounts.c.disabled)
            .select_from(passkeys.join(accounts, accounts.c.id == passkeys.c.account_id))
            .where(passkeys.c.id == key)).first()
    if row is None:
        return None
    try:
        found = verify_authentication_response(
            credential=credential, expected_challenge=challenge, expected_rp_id=rp_id,
            expected_origin=origin, credential_public_key=bytes(row.public_key),
            credential_current_sign_count=int(row.sign_count))
    except (WebAuthnException, ValueError, KeyError, TypeError):
        return None
    with engine.begin() as conn:  # only upward: two logins at once keep the higher count
        conn.execute(sa.update(passkeys).where(
            passkeys.c.id == key, passkeys.c.sign_count < found.new_sign_count)
            .values(sign_count=found.new_sign_count))
    if row.disabled:
        return None
    return Account(int(row.account_id), str(row.name))


def count(engine: Engine, account: Account) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(passkeys).where(
            passkeys.c.account_id == account.id)).scalar() or 0)


def parse(raw: bytes) -> dict[str, Any]:
    """A credential as the page posts it (JSON, bounded), or AccountError."""
    try:
        body = json.loads(raw) if len(raw) <= 16384 else None
    except (UnicodeDecodeError, ValueError):
        body = None
    if not isinstance(body, dict):
        raise AccountError(_("the request is not a passkey's answer"))
    return body
