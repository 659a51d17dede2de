"""A seat kept for its table's next game: its token, in a file only you may read (per
server, table and seat, in the config folder), and the lobby command that seats it again,
for ``xactika lobby`` (``join``, ``leave``, ``rematch``) and the REPL's ``again`` after a
game at a server's table."""

from __future__ import annotations

import os
from pathlib import Path

from xactika.frontends.cli.invocation import xactika_command
from xactika.frontends.net.lobbyclient import fields
from xactika.frontends.people.seats import seat_shown
from xactika.frontends.repl import render
from xactika.protocol.net.remote import parse_address
from xactika.protocol.trust.signing import config_dir

SEATS_DIR = "seats"  # in the config folder: each seat's token, per server, table and seat


def seat_file(address: str, table: int | str, seat: int | str) -> Path:
    """Where the seat ``table``/``seat`` taken at ``address`` keeps its token (only you may
    read it), so that ``rematch`` and ``leave`` need no token after ``join --play``: one
    file per seat, so two seats at one machine never share one."""
    host, port = parse_address(address)
    safe = "".join(c if c.isalnum() or c in ".-" else "_" for c in host)
    return config_dir() / SEATS_DIR / f"{safe}_{port}" / f"table{table}-seat{seat}.token"


def kept_seats(address: str) -> list[tuple[int, int, Path]]:
    """The seats whose tokens are kept for ``address``: (table, seat, file), in order."""
    folder = seat_file(address, 0, 0).parent
    found = []
    for path in folder.glob("table*-seat*.token") if folder.is_dir() else ():
        table, _sep, seat = path.name[len("table"):-len(".token")].partition("-seat")
        if table.isdigit() and seat.isdigit():
            found.append((int(table), int(seat), path))
    return sorted(found)


def write_private(path: Path, token: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as file:
        file.write(token + "\n")


def rematch_command(address: str, table: int | str, seat: int | str, tls: bool) -> str:
    """The lobby command that seats this seat at its table's next game."""
    return (f"{xactika_command()} lobby {address}{' --tls' if tls else ''} rematch {table} "
            f"--seat {seat_shown(int(seat)) if str(seat).isdigit() else seat} --play")


def rematch_text(host: str, port: int, token: str, tls: bool, seated: str = "") -> str:
    """What ``rematch`` says at the end of a remote game: the seat's token is kept for
    this seat (``seated``: the server's ``seated table=T seat=S`` line), and the lobby
    command that seats this person at the next game."""
    address = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"
    got = fields(seated)
    table, seat = got.get("table", "0"), got.get("seat", "0")
    try:
        write_private(seat_file(address, table, seat), token)
    except (OSError, ValueError) as exc:
        return f"cannot keep your seat's token for the rematch: {exc}"
    return ("the server's lobby seats you at the next game with the same players: leave "
            "this one ('quit'), then run\n" + render.command(
                rematch_command(address, table, seat, tls)))
