"""``xactika account``: the operator's hand on a site folder's accounts (spec/WEB.md).

    xactika account list DIR [--json]
    xactika account create DIR NAME        the password from standard input (or a prompt)
    xactika account disable DIR NAME [--enable]
    xactika account reset DIR NAME         a new password, every session of it ended
    xactika account ratings DIR --records OUT [--key FILE.pub]
                                           every rating recomputed from the signed records
"""

from __future__ import annotations

import argparse
import datetime as dt
import getpass
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from xactika.core.engine.errors import XactikaError
from xactika.frontends.cli.options import OneLineParser, lang_of
from xactika.frontends.i18n import _, error_said, using
from xactika.protocol.trust.signing import KeyFileError

PROG = "xactika account"


def build_parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog=PROG, description="The accounts of a web site folder "
                       "('xactika web --site DIR'): list, create, disable, reset; the "
                       "ratings recomputed from the signed records.")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("list", help="every account, its state and when it was made")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--json", action="store_true", help="print JSON")
    made = [sub.add_parser("create", help="make an account (password from standard input)"),
            sub.add_parser("disable",
                           help="disable an account: it cannot log in, its sessions end"),
            sub.add_parser("reset", help="give an account a new password (from standard "
                           "input)")]
    for p in made:
        p.add_argument("dir", metavar="DIR")
        p.add_argument("name", metavar="NAME")
    made[1].add_argument("--enable", action="store_true", help="enable it again")
    p = sub.add_parser("ratings", help="recompute every rating from the rated tables' records")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--records", required=True, metavar="OUT",
                   help="the web server's records folder (its --out)")
    p.add_argument("--key", default=None, metavar="FILE.pub",
                   help="the public key the records are signed with (default: the user's)")
    return ap


def _password() -> str:
    """One line of standard input, or asked twice at a terminal (never an argument: the
    process list shows arguments)."""
    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass(_("password: "))
    if getpass.getpass(_("again: ")) != first:
        raise XactikaError("the two passwords differ")
    return first


def main(argv: Sequence[str]) -> int:
    args_list = list(argv)
    with using(lang_of(args_list, has_lang=False)):
        args = build_parser().parse_args(args_list)
        try:
            return _run(args)
        except (XactikaError, KeyFileError, OSError, ValueError) as exc:
            print(f"{PROG} {args.command}: {error_said(exc)}", file=sys.stderr)
            return 2


def _run(args: argparse.Namespace) -> int:
    from xactika.frontends.accounts import identity, ratings
    from xactika.frontends.accounts.store import Site

    site = Site.open(args.dir)
    try:
        if args.command == "list":
            rows = identity.listing(site.engine)
            if args.json:
                print(json.dumps(rows))
            for row in rows if not args.json else ():
                made = dt.datetime.fromtimestamp(float(str(row["created"])), dt.UTC)
                state = _("disabled") if row["disabled"] else _("active")
                print(f"{row['name']}\t{state}\t{made:%Y-%m-%d %H:%M}")
        elif args.command == "create":
            account = identity.create(site.engine, args.name, _password())
            print(_("account {name} made").format(name=account.name))
        elif args.command == "disable":
            identity.set_disabled(site.engine, args.name, not args.enable)
            print((_("account {name} enabled") if args.enable
                   else _("account {name} disabled")).format(name=args.name))
        elif args.command == "reset":
            identity.set_password(site.engine, args.name, _password())
            print(_("account {name}: new password; its sessions ended").format(
                name=args.name))
        elif args.command == "ratings":
            from xactika.protocol.trust.signing import load_public_keys, signer_for

            keys = (load_public_keys(Path(args.key)) if args.key
                    else [signer_for(None).public])
            count = ratings.recompute(site.engine, Path(args.records), keys)
            print(_("{n} rated games applied again from {dir}").format(n=count,
                                                                        dir=args.records))
    finally:
        site.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
