"""Keyed signatures: the referee's Ed25519 key vouches for a record's chain head.

The hash chain (protocol/records/seal.py) uses no secret, so a forger who rewrites a record can
recompute it. A signature by the referee's key over the head cannot be recomputed
without that key: spec/TAMPER.md section 6 is the normative text.

Keys are small text files an auditor can use without this program: a private key is PEM
(PKCS#8, as ``openssl genpkey -algorithm ed25519`` writes it), a public key is one line
``ed25519:<64 hex digits>`` (an OpenSSH ``ssh-ed25519 AAAA...`` line or a PEM public key
is accepted too). ``cryptography`` is imported here only, and only when a key is used,
so the engine's start-up does not pay for it.
"""

from __future__ import annotations

import base64
import binascii
import errno
import hashlib
import os
import secrets
import shlex
import stat
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import attrs

from xactika.protocol.records.seal import ID_HEADER as ID_HEADER
from xactika.protocol.records.seal import SIG_WORD as SIG_WORD
from xactika.protocol.records.seal import SigLine as SigLine
from xactika.protocol.records.seal import parse_sig_line as parse_sig_line

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

KEY_PREFIX = "ed25519:"
RECORD_DOMAIN = "xactika-record-sig/1"
MANIFEST_DOMAIN = "xactika-manifest/1"
SIGNER_HEADER = "signer"
KEY_FILE = "referee.key"
MAX_KEY_FILE = 64 * 1024  # a trusted-keys file of a thousand keys is ~100 KB: plenty


class KeyFileError(ValueError):
    """A key file or key text that cannot be used; the message says why in one line."""


@attrs.frozen
class PublicKey:
    """An Ed25519 public key: 32 raw bytes."""

    raw: bytes

    @property
    def text(self) -> str:
        """``ed25519:<hex>``: how records, manifests and key files name the key."""
        return KEY_PREFIX + self.raw.hex()

    @property
    def fingerprint(self) -> str:
        """``SHA256:<base64>`` of the raw key, as OpenSSH shows fingerprints."""
        digest = hashlib.sha256(self.raw).digest()
        return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")

    def verify(self, signature: bytes, message: bytes) -> bool:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        try:
            Ed25519PublicKey.from_public_bytes(self.raw).verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True


class Signer:
    """A private key that signs; ``public`` is what auditors trust."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        from cryptography.hazmat.primitives import serialization

        self._key = key
        self.public = PublicKey(key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw))

    @classmethod
    def generate(cls) -> Signer:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(Ed25519PrivateKey.generate())

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)

    def signed_headers(self, headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """A record's headers naming this key (:func:`signed_headers`)."""
        return signed_headers(headers, self.public)

    def sig_line(self, record_id: str, events: int, head: str) -> str:
        """A record's last line, signed by this key (:func:`sig_line`)."""
        return sig_line(self, record_id, events, head)

    def pem(self) -> bytes:
        from cryptography.hazmat.primitives import serialization

        return self._key.private_bytes(serialization.Encoding.PEM,
                                       serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption())


# --------------------------------------------------------------------------- key files


def parse_public(text: str) -> PublicKey:
    """A public key from one line: ``ed25519:<hex>``, 64 hex digits, or ``ssh-ed25519 B64``."""
    words = text.split()
    if not words:
        raise KeyFileError("empty key")
    word = words[0]
    if word == "ssh-ed25519" and len(words) > 1:
        try:
            blob = base64.b64decode(words[1], validate=True)
        except binascii.Error:
            raise KeyFileError("ssh-ed25519 key is not base64") from None
        # string "ssh-ed25519", then string key: 4-byte lengths (RFC 8709)
        name = b"ssh-ed25519"
        want = len(name).to_bytes(4, "big") + name + (32).to_bytes(4, "big")
        if len(blob) != len(want) + 32 or not blob.startswith(want):
            raise KeyFileError("not an ssh-ed25519 public key")
        return PublicKey(blob[len(want):])
    hexa = word[len(KEY_PREFIX):] if word.startswith(KEY_PREFIX) else word
    if len(hexa) != 64 or any(c not in "0123456789abcdefABCDEF" for c in hexa):
        raise KeyFileError(f"expected ed25519:<64 hex digits>, not {_clip(word)!r}")
    return PublicKey(bytes.fromhex(hexa))


def open_plain_file(path: str | os.PathLike[str]) -> IO[bytes]:
    """Open a regular file for reading; OSError for anything else (a FIFO would hang)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_small(path: str | os.PathLike[str]) -> bytes:
    try:
        with open_plain_file(path) as fh:
            data = fh.read(MAX_KEY_FILE + 1)
    except OSError as exc:
        raise KeyFileError(f"cannot read {os.fspath(path)!r}: {exc.strerror}") from None
    if len(data) > MAX_KEY_FILE:
        raise KeyFileError(f"{os.fspath(path)!r} is longer than {MAX_KEY_FILE} bytes: "
                           "not a key file")
    return data


def load_public_keys(path: str | os.PathLike[str]) -> list[PublicKey]:
    """Every key of a public-key or trusted-keys file (one a line, ``#`` comments).

    A PEM public key, or a private key file (its public half), is accepted as well.
    """
    data = _read_small(path)
    if data.lstrip().startswith(b"-----BEGIN"):
        return [_pem_public(data, path)]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise KeyFileError(f"{os.fspath(path)!r} is not UTF-8 text") from None
    keys = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            keys.append(parse_public(line))
        except KeyFileError as exc:
            raise KeyFileError(f"{os.fspath(path)}:{number}: {exc}") from None
    if not keys:
        raise KeyFileError(f"{os.fspath(path)!r} holds no key")
    return keys


def public_key_arg(text: str) -> list[PublicKey]:
    """``--key``: a literal ``ed25519:<hex>`` or a file of keys."""
    if text.startswith(KEY_PREFIX):
        return [parse_public(text)]
    return load_public_keys(text)


def _pem_public(data: bytes, path: str | os.PathLike[str]) -> PublicKey:
    if b"PRIVATE KEY" in data:
        return load_signer(path).public
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = serialization.load_pem_public_key(data)
    except ValueError:
        raise KeyFileError(f"{os.fspath(path)!r}: not a PEM public key") from None
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileError(f"{os.fspath(path)!r}: not an Ed25519 key")
    return PublicKey(key.public_bytes(serialization.Encoding.Raw,
                                      serialization.PublicFormat.Raw))


def load_signer(path: str | os.PathLike[str]) -> Signer:
    """A private key file: PEM PKCS#8 or OpenSSH, unencrypted, Ed25519."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    data = _read_small(path)
    _private_mode(path)
    try:
        key: Any = (serialization.load_ssh_private_key(data, None)
                    if b"OPENSSH PRIVATE KEY" in data
                    else serialization.load_pem_private_key(data, None))
    except (ValueError, TypeError) as exc:
        raise KeyFileError(f"{os.fspath(path)!r}: not an unencrypted private key ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{os.fspath(path)!r}: not an Ed25519 key")
    return Signer(key)


def _private_mode(path: str | os.PathLike[str]) -> None:
    """Refuse a private key that others may read or change, as ssh does: whoever read it
    can sign records and manifests as this referee."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError as exc:
        raise KeyFileError(f"cannot read {os.fspath(path)!r}: {exc.strerror}") from None
    if mode & 0o077:
        name = os.fspath(path)
        raise KeyFileError(f"{name!r} is open to others (mode {mode:04o}): a private key "
                           f"must be yours alone; run chmod 600 {shlex.quote(name)}")


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/xactika`` or ``~/.config/xactika``."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "xactika"


def default_key_path() -> Path:
    return config_dir() / KEY_FILE


def write_key(path: str | os.PathLike[str], signer: Signer | None = None) -> Signer:
    """Write a new private key (mode 0600) and its ``.pub`` line; never overwrites.

    The key is written to a temporary file and linked into place, so two processes that
    both make the default key end with one key, and nobody reads a half-written one.
    Raises FileExistsError when ``path`` exists.
    """
    signer = signer or Signer.generate()
    target = Path(path)
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".key-")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(signer.pem())
            fh.flush()
            os.fsync(fh.fileno())
        os.link(tmp, target)
    finally:
        os.unlink(tmp)
    pub = Path(f"{target}.pub")
    pub.write_text(f"{signer.public.text} xactika referee key\n", encoding="utf-8")
    return signer


def default_signer() -> Signer:
    """The user's referee key, made on first use (directory 0700, key 0600)."""
    path = default_key_path()
    folder = path.parent
    if not folder.exists():
        folder.mkdir(parents=True, mode=0o700, exist_ok=True)
        os.chmod(folder, 0o700)
    if not path.exists():
        try:
            return write_key(path)
        except FileExistsError:
            pass  # another process made it first: use theirs
    return load_signer(path)


def signer_for(path: str | None) -> Signer:
    """``--key FILE`` when given, else the user's default key."""
    return load_signer(path) if path else default_signer()


# --------------------------------------------------------------------------- record signatures


def new_record_id() -> str:
    return secrets.token_hex(16)


def signed_headers(headers: Iterable[tuple[str, str]], signer: PublicKey,
                   record_id: str | None = None) -> list[tuple[str, str]]:
    """The headers with ``signer`` set to this key and an ``id`` (kept if present).

    Any previous signer is dropped: a record names the one key that signs it.
    """
    items = [(k, v) for k, v in headers if k != SIGNER_HEADER]
    if not any(k == ID_HEADER for k, _ in items):
        items.append((ID_HEADER, record_id or new_record_id()))
    items.append((SIGNER_HEADER, signer.text))
    return items


def record_message(signer: str, record_id: str, events: int, head: str) -> bytes:
    """What the signature covers: domain tag, key, record identity, event count, head."""
    return f"{RECORD_DOMAIN}\n{signer}\n{record_id}\n{events}\n{head}\n".encode()


def sig_line(signer: Signer, record_id: str, events: int, head: str) -> str:
    """The record's last line: ``sig events=N head=<hex> ed25519=<hex>``."""
    signature = signer.sign(record_message(signer.public.text, record_id, events, head))
    return f"{SIG_WORD} events={events} head={head} ed25519={signature.hex()}"


# --------------------------------------------------------------------------- manifests


def manifest_message(match_id: str, body: str) -> bytes:
    """A manifest line's signature covers the domain tag, the match and the line's body."""
    return f"{MANIFEST_DOMAIN}\n{match_id}\n{body}\n".encode()


def fields_of(words: Sequence[str]) -> dict[str, str]:
    return {k: v for k, _, v in (w.partition("=") for w in words)}


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[:width] + "..."
