"""``xactika keygen``: make (or show) the Ed25519 key a referee signs records with.

The private key is PEM (PKCS#8), mode 0600; its public half goes to ``FILE.pub`` as one
line ``ed25519:<hex>`` that auditors pass to ``xactika audit --key``. What it prints is
itself a public-key file (the key, then ``#`` comments). spec/TAMPER.md.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Sequence

from xactika.frontends.cli.options import OneLineParser
from xactika.frontends.i18n import later
from xactika.protocol.trust.signing import (
    KeyFileError,
    Signer,
    default_key_path,
    load_signer,
    write_key,
)


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(
        prog="xactika keygen",
        description=later("Make a new Ed25519 signing key for records and match manifests, "
                          "or show the public key of an existing one. Without FILE: the "
                          "default key that the engine, the REPL, selfplay and match use "
                          "({path}).", path=str(default_key_path())),
    )
    ap.add_argument("file", nargs="?", default=None, metavar="FILE",
                    help="the private key file to write (its public key goes to FILE.pub)")
    ap.add_argument("--show", action="store_true",
                    help="do not make a key: print the public key of FILE (or the default)")
    return ap


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.file == "":
        print("xactika keygen: FILE is empty: name the key file, or leave FILE out for the "
              f"default ({default_key_path()})", file=sys.stderr)
        return 2
    path = args.file or str(default_key_path())
    wrote = False
    try:
        if args.show:
            signer = load_signer(path)
        else:
            try:
                signer = write_key(path, Signer.generate())
            except FileExistsError:
                if not os.path.lexists(path):  # a folder on the way is a file
                    raise NotADirectoryError(errno.ENOTDIR, "a folder on its path is a file",
                                             path) from None
                print(f"xactika keygen: {path} exists; it is never overwritten (--show prints "
                      "its public key)", file=sys.stderr)
                return 1
            wrote = True
    except KeyFileError as exc:
        print(f"xactika keygen: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the key file's path, not the temporary file's or a folder's
        verb = "read" if args.show else "write"
        print(f"xactika keygen: cannot {verb} {path!r}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    # What is printed is a public-key file as it is: `keygen --show > pub.txt` and
    # `--key "$(xactika keygen --show)"` both give auditors the key
    print(signer.public.text)
    print(f"# fingerprint: {signer.public.fingerprint}")
    if wrote:
        print(f"# wrote {path} (private, mode 0600) and {path}.pub")
    print(f"# public key file: {path}.pub (for auditors: xactika audit --key {path}.pub)")
    return 0
