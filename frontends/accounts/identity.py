"""Accounts and their sessions: names, Argon2id passwords, cookies' server side.

A password is hashed by argon2-cffi's defaults (RFC 9106's low-memory profile) and
rehashed at the next login when those defaults change. A session's cookie value is 32
random bytes; the database keeps only its SHA-256, so a copy of the database opens no
session. Names are compared as seat names are (``wire.name_key``: NFKC, case folded), and
an account's name is the name it has at a table, so it must be a name the lobby keeps as it
is (letters, digits, ``-_.``).
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
import unicodedata
from dataclasses import dataclass

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy.engine import Engine

from xactika.core.bots.agents import agent_names
from xactika.core.engine.errors import XactikaError
from xactika.frontends.accounts.store import accounts, sessions
from xactika.frontends.i18n import _
from xactika.protocol.net.lobby import NAME_MAX  # a seat's name in the lobby
from xactika.protocol.player.wire import name_key

NAME_MIN = 2
PASSWORD_MIN, PASSWORD_MAX = 8, 256
SESSION_DAYS = 30
RESERVED = frozenset({"admin", "administrator", "root", "system", "operator", "guest",
                      "player", "someone", "anonymous", "nobody", "bot", "xactika", "dix",
                      "ohhell", "server", "host", "moderator", "support", "you", "me"})
HASHER = PasswordHasher()  # RFC 9106 low-memory: 64 MiB, 3 passes, 4 lanes
_DUMMY = HASHER.hash("not anyone's password")  # verified when the name is unknown


def taken() -> str:
    """One answer: a taken name and a reserved one are not told apart."""
    return _("that name is taken or reserved")


class AccountError(XactikaError):
    """A request about an account that cannot be done; one line, safe to show."""


@dataclass(frozen=True)
class Account:
    id: int
    name: str


# names that read as a seat label or the house's own ("seat 2", "house-1", "bot-x")
RESERVED_PREFIXES = ("house-", "seat", "bot-")


def check_name(name: str) -> str:
    """The name as it is kept, or AccountError: the lobby's characters, 2-20 of them, not
    a reserved word, a bot's name or a seat label."""
    name = unicodedata.normalize("NFKC", name.strip())
    if not NAME_MIN <= len(name) <= NAME_MAX or not name[0].isalnum() \
            or not all(c.isalnum() or c in "-_." for c in name):
        raise AccountError(_("a name is {low} to {high} letters, digits, '-', '_' or '.', "
                             "starting with a letter or digit").format(low=NAME_MIN,
                                                                       high=NAME_MAX))
    key = name_key(name)
    if key in RESERVED or key in bot_names() or key.startswith(RESERVED_PREFIXES):
        raise AccountError(taken())
    return name


def bot_names() -> set[str]:
    """Every name a built-in bot has at a table (its agent's, and what plays it in each
    game: ``beginner``, ``strong``...), compared as names are: no person may take one."""
    from xactika.core.bots.agents import plays
    from xactika.core.engine.api import games

    names = set(agent_names()) | {a.replace(":", "") for a in agent_names()}
    for game in games():
        for agent in agent_names():
            try:
                names.add(plays(agent, game))
            except ValueError:
                continue
    return {name_key(n) for n in names}


def is_bot(name: str) -> bool:
    """A seat's name at a rated table is a bot's (``strong``, ``strong (2)``)."""
    return name_key(re.sub(r" \(\d+\)$", "", name)) in bot_names()


def check_password(password: str) -> str:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise AccountError(_("a password is {low} to {high} characters").format(
            low=PASSWORD_MIN, high=PASSWORD_MAX))
    return password


def create(engine: Engine, name: str, password: str) -> Account:
    """A new account; AccountError when the name (or a look-alike) is taken."""
    name, password = check_name(name), check_password(password)
    digest = HASHER.hash(password)
    try:
        with engine.begin() as conn:
            made = conn.execute(sa.insert(accounts).values(
                name=name, key=name_key(name), hash=digest, disabled=False,
                created=time.time())).inserted_primary_key
            assert made is not None
            number = made[0]
    except sa.exc.IntegrityError:
        raise AccountError(taken()) from None
    return Account(int(number), name)


def find(engine: Engine, name: str) -> Account | None:
    with engine.connect() as conn:
        row = conn.execute(sa.select(accounts.c.id, accounts.c.name)
                           .where(accounts.c.key == name_key(name.strip()))).first()
    return Account(row.id, row.name) if row is not None else None


def login(engine: Engine, name: str, password: str) -> Account | None:
    """The account if the password is its own and it is not disabled, else None; the same
    work (one Argon2 verification) whether or not the name exists."""
    with engine.connect() as conn:
        row = conn.execute(sa.select(accounts).where(
            accounts.c.key == name_key(name.strip()[:NAME_MAX * 4]))).first()
    digest = row.hash if row is not None else _DUMMY
    try:
        HASHER.verify(digest, password[:PASSWORD_MAX])
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return None
    if row is None or row.disabled:
        return None
    if HASHER.check_needs_rehash(digest):
        with engine.begin() as conn:
            conn.execute(sa.update(accounts).where(accounts.c.id == row.id)
                         .values(hash=HASHER.hash(password)))
    return Account(row.id, row.name)


def set_password(engine: Engine, name: str, password: str) -> None:
    """The operator's reset: a new password, every session of the account ended."""
    account = _existing(engine, name)
    digest = HASHER.hash(check_password(password))
    with engine.begin() as conn:
        conn.execute(sa.update(accounts).where(accounts.c.id == account.id)
                     .values(hash=digest))
        conn.execute(sa.delete(sessions).where(sessions.c.account_id == account.id))


def set_disabled(engine: Engine, name: str, disabled: bool = True) -> None:
    account = _existing(engine, name)
    with engine.begin() as conn:
        conn.execute(sa.update(accounts).where(accounts.c.id == account.id)
                     .values(disabled=disabled))
        if disabled:
            conn.execute(sa.delete(sessions).where(sessions.c.account_id == account.id))


def listing(engine: Engine) -> list[dict[str, object]]:
    with engine.connect() as conn:
        rows = conn.execute(sa.select(accounts.c.name, accounts.c.disabled,
                                      accounts.c.created).order_by(accounts.c.key)).all()
    return [{"name": r.name, "disabled": bool(r.disabled), "created": r.created}
            for r in rows]


def _existing(engine: Engine, name: str) -> Account:
    account = find(engine, name)
    if account is None:
        raise AccountError(f"no account named {name[:NAME_MAX]!r}")
    return account


# -- sessions
def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def open_session(engine: Engine, account: Account) -> str:
    """A new session's cookie value (a fresh one at every login: no fixation)."""
    token = secrets.token_urlsafe(32)
    now = time.time()
    with engine.begin() as conn:
        conn.execute(sa.delete(sessions).where(sessions.c.expires < now))
        conn.execute(sa.insert(sessions).values(id=_digest(token), account_id=account.id,
                                                created=now,
                                                expires=now + SESSION_DAYS * 86400))
    return token


def session_account(engine: Engine, token: str | None) -> Account | None:
    if not token or len(token) > 100:
        return None
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(accounts.c.id, accounts.c.name)
            .select_from(sessions.join(accounts, accounts.c.id == sessions.c.account_id))
            .where(sessions.c.id == _digest(token), sessions.c.expires > time.time(),
                   accounts.c.disabled.is_(False))).first()
    return Account(row.id, row.name) if row is not None else None


def end_session(engine: Engine, token: str | None) -> None:
    if token:
        with engine.begin() as conn:
            conn.execute(sa.delete(sessions).where(sessions.c.id == _digest(token)))
