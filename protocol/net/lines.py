"""The table server's own lines (spec/SERVER.md sections 2, 4, 5 and 9), typed in one place.

A connection's first line (``seat``, ``observe``, ``admin``, ``lobby``), the admin
session's commands and the lobby's are read here into values, as wire.py reads the player
protocol's, and the server and its lobby match on their types, never on a first word
(tests/test_wire_lines.py). ``wire.format_line(m)`` is each value's line and reads back
to it. A line that does not read raises :class:`~xactika.protocol.player.wire.WireError`,
whose one line is the error the server has always sent for it. The answers (``lobby ok``,
``joined ...``) are typed too: the server writes them from values (``parse_answer``).

The settings of ``table`` and ``create`` and the fields of ``join`` are carried as their
words: what they may say is the server's and the lobby's to judge, with their own messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xactika.protocol.notation.blanks import split_blanks
from xactika.protocol.player.wire import Msg, Quit, TakeSeat, Value, WireError, parse, shown

WORDS = frozenset({"seat", "observe", "admin", "lobby", "table", "tables", "quit", "create",
                   "join", "leave", "rematch", "watch"})
"""The command words read here: no other module of the server compares a line's first
word with one (tests/test_wire_lines.py)."""
FIRST_EXPECTED = "expected 'seat TOKEN', 'observe TOKEN', 'admin TOKEN' or 'lobby' first"
UNKNOWN_TOKEN = "unknown token"


class _Token(Value):
    """A word and a token: the connection's first line, or the lobby's hand-over."""

    __slots__ = ("token",)
    __match_args__ = _order = ("token",)
    token: str
    WORD = ""

    def __init__(self, token: str) -> None:
        self._set(token=token)

    def _line(self) -> str:
        return f"{self.WORD} {self.token}"


class Observe(_Token):
    """``observe TOKEN``: watch the table of that observer token (SERVER.md section 4)."""

    __slots__ = ()
    WORD = "observe"


class Admin(_Token):
    """``admin TOKEN``: the admin session (SERVER.md section 5)."""

    __slots__ = ()
    WORD = "admin"


class SeatField(Value):
    """``seat TOKEN <field>`` with a field that is not ``resume=SEQ``: refused once the
    token is known to be a seat's, saying which field (SERVER.md section 3)."""

    __slots__ = ("field", "token")
    __match_args__ = _order = ("token", "field")
    token: str
    field: str

    def __init__(self, token: str, field: str) -> None:
        self._set(token=token, field=field)

    def _line(self) -> str:
        return f"seat {self.token} {self.field}"


class EnterLobby(Value):
    """``lobby`` or ``lobby ADMIN_TOKEN``: a lobby session (SERVER.md section 9)."""

    __slots__ = ("token",)
    __match_args__ = _order = ("token",)
    token: str | None

    def __init__(self, token: str | None = None) -> None:
        self._set(token=token)

    def _line(self) -> str:
        return "lobby" if self.token is None else f"lobby {self.token}"


Enter = TakeSeat | SeatField | Observe | Admin
"""A line that shows a token for what it opens: a seat, a table to watch, the admin."""
First = Enter | EnterLobby


def _seat(words: Sequence[str]) -> TakeSeat | SeatField:
    resume: int | None = None
    for word in words[2:]:  # the last resume= counts, as it always did
        key, _, value = word.partition("=")
        if not (key == "resume" and value.isascii() and value.isdigit() and len(value) < 10):
            return SeatField(words[1], word)
        resume = int(value)
    return TakeSeat(words[1], resume)


def parse_first(line: str) -> First:
    """A connection's first line; WireError (the server's refusal) for any other."""
    words = split_blanks(line)
    if words[:1] == ["lobby"] and len(words) <= 2:
        return EnterLobby(words[1] if len(words) == 2 else None)
    if len(words) < 2 or words[0] not in ("seat", "observe", "admin", "lobby"):
        raise WireError(FIRST_EXPECTED)
    if words[0] == "lobby":  # a token cannot be followed by more words
        raise WireError(UNKNOWN_TOKEN)
    if words[0] == "seat":
        return _seat(words)
    return Observe(words[1]) if words[0] == "observe" else Admin(words[1])


def enter_kind(enter: Enter) -> str:
    """What a token must open for ``enter``: ``seat``, ``observe`` or ``admin``."""
    return "seat" if isinstance(enter, TakeSeat | SeatField) else enter.WORD


# --------------------------------------------------------------------------- admin


class ListTables(Value):
    """``tables``: every table (the admin's) or every table not over (the lobby's)."""

    __slots__ = ()
    __match_args__ = ()

    def _line(self) -> str:
        return "tables"


class _Settings(Value):
    """A command and its ``KEY=VALUE`` words, as sent."""

    __slots__ = ("settings",)
    __match_args__ = _order = ("settings",)
    settings: tuple[str, ...]
    WORD = ""

    def __init__(self, settings: Sequence[str] = ()) -> None:
        self._set(settings=tuple(settings))

    def _line(self) -> str:
        return " ".join((self.WORD, *self.settings))


class NewTable(_Settings):
    """``table KEY=VALUE...``: the admin creates a table (SERVER.md section 5)."""

    __slots__ = ()
    WORD = "table"


AdminCommand = NewTable | ListTables | Quit


def parse_admin(line: str) -> AdminCommand:
    """An admin session's command; WireError (sent as ``error``) for an unknown one."""
    words = split_blanks(line) or [""]
    match words[0]:
        case "quit":
            return Quit()
        case "tables":
            return ListTables()
        case "table":
            return NewTable(words[1:])
    raise WireError(f"unknown admin command {shown(words[0], 40)!r}: expected "
                    "table KEY=VALUE..., tables or quit")


# --------------------------------------------------------------------------- lobby


class Watch(Value):
    """``watch <table>``: watch a lobby table (SERVER.md section 9); the web's first line
    may add ``name=<name>`` (spec/WEB.md section 2). ``table`` as sent: the lobby reads it."""

    __slots__ = ("name", "table")
    __match_args__ = _order = ("table", "name")
    table: str
    name: str | None

    def __init__(self, table: str, name: str | None = None) -> None:
        self._set(table=table, name=name)

    def _line(self) -> str:
        return f"watch {self.table}" + ("" if self.name is None else f" name={self.name}")


class Create(_Settings):
    """``create KEY=VALUE...``: a new lobby table."""

    __slots__ = ()
    WORD = "create"


class Join(Value):
    """``join TABLE name=NAME [seat=N]``: an open seat; the fields as sent."""

    __slots__ = ("fields", "table")
    __match_args__ = _order = ("table", "fields")
    table: str
    fields: tuple[str, ...]

    def __init__(self, table: str, fields: Sequence[str] = ()) -> None:
        self._set(table=table, fields=tuple(fields))

    def _line(self) -> str:
        return " ".join(("join", self.table, *self.fields))


class Leave(_Token):
    """``leave TOKEN``: give a seat back before its game starts."""

    __slots__ = ()
    WORD = "leave"


class Rematch(_Token):
    """``rematch TOKEN``: the next game of a finished table, for that seat."""

    __slots__ = ()
    WORD = "rematch"


LobbyCommand = Quit | TakeSeat | SeatField | Observe | Watch | ListTables | Create | Join \
    | Leave | Rematch


def parse_lobby(line: str) -> LobbyCommand:
    """A lobby session's command; WireError (sent as ``error``) for an unknown one."""
    words = split_blanks(line) or [""]
    command, rest = words[0], words[1:]
    if command == "quit":
        return Quit()
    if command in ("seat", "observe") and rest:
        first = parse_first(line)
        assert not isinstance(first, EnterLobby | Admin)
        return first
    if command == "watch" and len(rest) == 1:
        return Watch(rest[0])
    if command == "tables" and not rest:
        return ListTables()
    if command == "create":
        return Create(rest)
    if command == "join" and rest:
        return Join(rest[0], rest[1:])
    if command == "leave" and len(rest) == 1:
        return Leave(rest[0])
    if command == "rematch" and len(rest) == 1:
        return Rematch(rest[0])
    raise WireError(f"unknown lobby command {shown(line, 40)!r}: expected "
                    "tables, create, join, leave, rematch, watch, seat or quit")


# --------------------------------------------------------------------------- answers


class _Said(Value):
    """An answer that is its words alone (``ok``, ``bye``, ``admin ok``, ``lobby ok``)."""

    __slots__ = ()
    __match_args__ = ()
    WORDS = ""

    def _line(self) -> str:
        return self.WORDS


class Ok(_Said):
    """``ok``: the end of a listing."""

    __slots__ = ()
    WORDS = "ok"


class Bye(_Said):
    """``bye``: the lobby's answer to ``quit``, before it closes."""

    __slots__ = ()
    WORDS = "bye"


class AdminOk(_Said):
    """``admin ok``: the admin session is open."""

    __slots__ = ()
    WORDS = "admin ok"


class LobbyOk(Value):
    """``lobby ok [admin]``: the lobby session is open (with the admin's token: no limits)."""

    __slots__ = ("admin",)
    __match_args__ = _order = ("admin",)
    admin: bool

    def __init__(self, admin: bool = False) -> None:
        self._set(admin=admin)

    def _line(self) -> str:
        return "lobby ok admin" if self.admin else "lobby ok"


class _Keyed(Value):
    """``<word> key=value...``: an answer of named fields, in the order of ``_order``
    (those in ``NUMBERS`` are numbers)."""

    __slots__ = ()
    WORD = ""
    NUMBERS: frozenset[str] = frozenset({"table", "seat", "id", "players", "rounds",
                                         "observers"})

    def __init__(self, *values: object) -> None:
        self._set(**dict(zip(self._order, values, strict=True)))

    def _line(self) -> str:
        return " ".join([self.WORD, *(f"{name}={getattr(self, name)}" for name in self._order)])

    @classmethod
    def _read(cls, words: Sequence[str]) -> Value:
        found = dict(word.partition("=")[::2] for word in words[1:])
        if list(found) != list(cls._order) or len(words) != len(cls._order) + 1:
            raise WireError(f"expected {cls.WORD} " + " ".join(f"{n}=..." for n in cls._order))
        values: list[object] = []
        for name in cls._order:
            text = found[name]
            if name in cls.NUMBERS and not (text.isascii() and text.isdigit()):
                raise WireError(f"bad {name}='{shown(text, 40)}': expected a number")
            values.append(int(text) if name in cls.NUMBERS else text)
        return cls(*values)


class Created(_Keyed):
    """``created table=<id>``: the lobby made a table."""

    __slots__ = ("table",)
    __match_args__ = _order = ("table",)
    table: int
    WORD = "created"


class _SeatToken(_Keyed):
    """``<word> table=<id> seat=<s> token=<token>``: a seat and its token, to this
    connection only."""

    __slots__ = ("seat", "table", "token")
    __match_args__ = _order = ("table", "seat", "token")
    table: int
    seat: int
    token: str


class Joined(_SeatToken):
    """``joined table=<id> seat=<s> token=<token>``: a seat taken in the lobby."""

    __slots__ = ()
    WORD = "joined"


class Left(_Keyed):
    """``left table=<id> seat=<s>``: a seat given back."""

    __slots__ = ("seat", "table")
    __match_args__ = _order = ("table", "seat")
    table: int
    seat: int
    WORD = "left"


class Rematched(_SeatToken):
    """``rematch table=<id> seat=<s> token=<token>``: that seat at the next game's table."""

    __slots__ = ()
    WORD = "rematch"


class TableStatus(_Keyed):
    """``table id=<id> status=<status> seated=<n>/<seats>``: the admin's listing."""

    __slots__ = ("id", "seated", "status")
    __match_args__ = _order = ("id", "status", "seated")
    id: int
    status: str
    seated: str
    WORD = "table"


class LobbyTable(_Keyed):
    """``table id= game= mode= players= rounds= status= open= names= observers=``: the
    lobby's listing; ``open`` and ``names`` as shown (``-`` for none, names escaped)."""

    __slots__ = ("game", "id", "mode", "names", "observers", "open", "players", "rounds",
                 "status")
    __match_args__ = _order = ("id", "game", "mode", "players", "rounds", "status", "open",
                               "names", "observers")
    id: int
    game: str
    mode: str
    players: int
    rounds: int
    status: str
    open: str
    names: str
    observers: int
    WORD = "table"


Answer = Ok | Bye | AdminOk | LobbyOk | Created | Joined | Left | Rematched | TableStatus \
    | LobbyTable
"""The admin's and the lobby's answers (an ``error`` is wire.py's ``ServerError``)."""

_PLAIN: dict[str, Answer] = {"ok": Ok(), "bye": Bye(), "admin ok": AdminOk(),
                             "lobby ok": LobbyOk(), "lobby ok admin": LobbyOk(True)}
_KEYED: dict[tuple[str, int], type[_Keyed]] = {
    (kind.WORD, len(kind._order)): kind
    for kind in (Created, Joined, Left, Rematched, TableStatus, LobbyTable)}


def parse_answer(line: str) -> Answer | Msg:
    """An answer of the admin or the lobby; any other line (``error``, ``watching``, the
    tokens ``xactika serve`` prints) as wire.py reads it."""
    words = split_blanks(line)
    plain = _PLAIN.get(" ".join(words))
    if plain is not None:
        return plain
    keyed = _KEYED.get((words[0], len(words) - 1)) if words else None
    return parse(line) if keyed is None else cast("Answer", keyed._read(words))
