"""The lines the web app adds to the server's (spec/WEB.md section 2), typed in one place.

From the page: its first line (``watch <table> [name=<name>]``, or the server's own
``seat TOKEN``) and ``chat <text>``; to the page: the ``say`` lines of narration and the
table's ``chat <name> <text>``. The web app writes each from its value and reads the
page's lines here, matching on their types as every reader of wire.py's lines does
(tests/test_wire_lines.py); ``wire.format_line(m)`` reads back to ``m``. Nothing here is
part of a game or of its record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xactika.protocol.net.lines import First, Watch, parse_first
from xactika.protocol.notation.blanks import split_blanks
from xactika.protocol.player.wire import Other, Value, WireError, fields_of, shown

WORDS = frozenset({"chat", "say"})
"""The command words the web adds (with lines.py's ``watch``): read here only."""

# --------------------------------------------------------------------------- from the page


class Chat(Value):
    """``chat <text>``: a message to the table's chat, never sent to the server's session."""

    __slots__ = ("text",)
    __match_args__ = _order = ("text",)
    text: str

    def __init__(self, text: str) -> None:
        self._set(text=text)

    def _line(self) -> str:
        return f"chat {self.text}" if self.text else "chat"


def parse_page_first(line: str) -> Watch | First | Other:
    """The page's first line: ``watch <table>`` (a number) with an optional ``name=``, or a
    server's first line; anything else is an :class:`Other`, for the server to refuse."""
    words = split_blanks(line)
    if words[:1] == ["watch"] and len(words) >= 2 and words[1].isascii() \
            and words[1].isdigit():
        names = [w for w in words[2:] if w.startswith("name=")]
        return Watch(words[1], fields_of(names[:1]).get("name"))
    try:
        return parse_first(line)
    except WireError:
        return Other(words[0] if words else "", line)


def parse_page(line: str) -> Chat | Other:
    """A page's line after its first: a :class:`Chat`, or an :class:`Other` (the player
    protocol's, for the server's session)."""
    words = split_blanks(line, 1)
    if words[:1] == ["chat"]:
        return Chat(words[1].strip() if len(words) > 1 else "")
    return Other(words[0] if words else "", line)


# --------------------------------------------------------------------------- to the page


def _text(values: Sequence[object]) -> str:
    return ",".join(str(v) for v in values) or "-"


def _numbers(text: str, what: str) -> tuple[int, ...]:
    if text == "-":
        return ()
    try:
        return tuple(int(v) for v in text.split(","))
    except ValueError:
        raise WireError(f"bad {what}='{shown(text, 40)}': expected numbers or -") from None


def _number(text: str, what: str) -> int | None:
    found = _numbers(text, what)
    if len(found) > 1:
        raise WireError(f"bad {what}='{shown(text, 40)}': expected a number or -")
    return found[0] if found else None


class Heard(Value):
    """``chat <name> <text>``: a chat message as the table hears it (the name one word)."""

    __slots__ = ("text", "who")
    __match_args__ = _order = ("who", "text")
    who: str
    text: str

    def __init__(self, who: str, text: str) -> None:
        self._set(who=who, text=text)

    def _line(self) -> str:
        return f"chat {self.who} {self.text}"


class _Say(Value):
    """A ``say <kind> <text>`` line: narration for people, one line."""

    __slots__ = ("text",)
    __match_args__: tuple[str, ...] = ("text",)
    _order: tuple[str, ...] = ("text",)
    text: str
    KIND = ""

    def __init__(self, text: str) -> None:
        self._set(text=text)

    def _line(self) -> str:
        return f"say {self.KIND} {self.text}"

    @classmethod
    def _read(cls, rest: str) -> _Say:
        return cls(rest)


class SayRound(_Say):
    """``say round <text>``: after a ``round-scored``, one line of its outcome."""

    __slots__ = ()
    KIND = "round"


class SayDim(_Say):
    """``say dim <text>``: before a ``go play`` the follow rule binds, why cards are dimmed."""

    __slots__ = ()
    KIND = "dim"


class SayCoach(_Say):
    """``say coach <text>``: the tutorial's introduction and its word before each move."""

    __slots__ = ()
    KIND = "coach"


class SayNote(_Say):
    """``say note <text>``: the end of the guided round, and the REPL's other notes."""

    __slots__ = ()
    KIND = "note"


class SayChatRefused(_Say):
    """``say chat-refused <why>``: a chat message was not sent."""

    __slots__ = ()
    KIND = "chat-refused"


class SayNames(_Say):
    """``say names <n0>,<n1>,...``: the seats' names (a name may hold a space)."""

    __slots__ = ("names",)
    __match_args__ = _order = ("names",)
    names: tuple[str, ...]
    KIND = "names"

    def __init__(self, names: Sequence[str]) -> None:
        self._set(names=tuple(names))

    def _line(self) -> str:
        return f"say names {','.join(self.names)}"

    @classmethod
    def _read(cls, rest: str) -> _Say:
        return cls(rest.split(","))


class SayWhyWon(_Say):
    """``say why-won trick=<n> winner=<s> <text>``: why a trick was won."""

    __slots__ = ("trick", "winner")
    __match_args__ = _order = ("trick", "winner", "text")
    trick: int
    winner: int
    KIND = "why-won"

    def __init__(self, trick: int, winner: int, text: str) -> None:
        self._set(trick=trick, winner=winner, text=text)

    def _line(self) -> str:
        return f"say why-won trick={self.trick} winner={self.winner} {self.text}"

    @classmethod
    def _read(cls, rest: str) -> _Say:
        words = split_blanks(rest, 2)
        fields = fields_of(words[:2])
        trick, winner = fields.get("trick", ""), fields.get("winner", "")
        if not all(v.isascii() and v.isdigit() for v in (trick, winner)):
            raise WireError("expected say why-won trick=<n> winner=<s> <text>")
        return cls(int(trick), int(winner), words[2] if len(words) > 2 else "")


class SayResult(_Say):
    """``say result winners=<s>,... forfeited=<s>,... <text>``: who won, as the record
    says (``-`` for none), and in words."""

    __slots__ = ("forfeited", "winners")
    __match_args__ = _order = ("winners", "forfeited", "text")
    winners: tuple[int, ...]
    forfeited: tuple[int, ...]
    KIND = "result"

    def __init__(self, winners: Sequence[int], forfeited: Sequence[int], text: str) -> None:
        self._set(winners=tuple(winners), forfeited=tuple(forfeited), text=text)

    def _line(self) -> str:
        line = f"say result winners={_text(self.winners)} forfeited={_text(self.forfeited)}"
        return f"{line} {self.text}" if self.text else line

    @classmethod
    def _read(cls, rest: str) -> _Say:
        words = split_blanks(rest, 2)
        fields = fields_of(words[:2])
        if set(fields) != {"winners", "forfeited"}:
            raise WireError("expected say result winners=<seats> forfeited=<seats> <text>")
        return cls(_numbers(fields["winners"], "winners"),
                   _numbers(fields["forfeited"], "forfeited"), words[2] if len(words) > 2 else "")


class SayTable(_Say):
    """``say table turn= move= sizes= stock= trump= [round= dealer= bids= taken= totals=
    trick= call=] [hand-<order>=<cards>...]``: what a table shows (``-`` for none): whose
    turn and what kind of move, every hand's size, the cards left to draw, the trump in
    words (spaces as ``-``); once a round is dealt its number, the dealer, every seat's bid
    (``-`` for none yet), tricks taken and total, the trick on the table (``<seat>:<card>``
    each) and its call; and, to a seat, its own hand in each of the game's orders (cards as
    text) whenever it changed. A field that holds nothing (no round yet, no trick, no
    call) is left out."""

    __slots__ = ("bids", "call", "dealer", "hands", "move", "round", "sizes", "stock",
                 "taken", "totals", "trick", "trump", "turn")
    __match_args__ = _order = ("turn", "move", "sizes", "stock", "trump", "hands", "round",
                               "dealer", "bids", "taken", "totals", "trick", "call")
    turn: int | None
    move: str | None
    sizes: tuple[int, ...]
    stock: int | None
    trump: str | None
    hands: tuple[tuple[str, tuple[str, ...]], ...]
    round: int | None
    dealer: int | None
    bids: tuple[int | None, ...]
    taken: tuple[int, ...]
    totals: tuple[int, ...]
    trick: tuple[tuple[int, str], ...]
    call: str | None
    KIND = "table"
    SHOWN = ("round", "dealer", "bids", "taken", "totals", "trick", "call")
    """The fields written only when they hold something, in this order."""

    def __init__(self, turn: int | None, move: str | None, sizes: Sequence[int],
                 stock: int | None = None, trump: str | None = None,
                 hands: Sequence[tuple[str, Sequence[str]]] = (), *,
                 round: int | None = None, dealer: int | None = None,
                 bids: Sequence[int | None] = (), taken: Sequence[int] = (),
                 totals: Sequence[int] = (), trick: Sequence[tuple[int, str]] = (),
                 call: str | None = None) -> None:
        self._set(turn=turn, move=move, sizes=tuple(sizes), stock=stock,
                  trump=trump.replace(" ", "-") if trump not in (None, "", "-") else None,
                  hands=tuple((sort, tuple(cards)) for sort, cards in hands),
                  round=round, dealer=dealer, bids=tuple(bids), taken=tuple(taken),
                  totals=tuple(totals), trick=tuple((s, c) for s, c in trick),
                  call=call or None)

    def _shown(self) -> list[str]:
        values = {"round": self.round, "dealer": self.dealer,
                  "bids": ",".join("-" if b is None else str(b) for b in self.bids),
                  "taken": ",".join(map(str, self.taken)),
                  "totals": ",".join(map(str, self.totals)),
                  "trick": ",".join(f"{seat}:{card}" for seat, card in self.trick),
                  "call": self.call}
        return [f"{key}={values[key]}" for key in self.SHOWN
                if values[key] is not None and values[key] != ""]

    def _line(self) -> str:
        return " ".join([f"say table turn={'-' if self.turn is None else self.turn}",
                         f"move={self.move or '-'} sizes={_text(self.sizes)}",
                         f"stock={'-' if self.stock is None else self.stock}",
                         f"trump={self.trump or '-'}", *self._shown(),
                         *(f"hand-{sort}={_text(cards)}" for sort, cards in self.hands)])

    @classmethod
    def _read(cls, rest: str) -> _Say:
        words = split_blanks(rest)
        fields = fields_of(words[:5])
        if [w.partition("=")[0] for w in words[:5]] != list(cls._order[:5]):
            raise WireError("expected say table turn= move= sizes= stock= trump= ...")
        pairs = [w.partition("=")[::2] for w in words[5:]]
        shown = {key: value for key, value in pairs if key in cls.SHOWN}
        hands = [(key[len("hand-"):], () if cards == "-" else tuple(cards.split(",")))
                 for key, cards in pairs if key.startswith("hand-")]
        move = fields["move"]
        return cls(_number(fields["turn"], "turn"), None if move == "-" else move,
                   _numbers(fields["sizes"], "sizes"), _number(fields["stock"], "stock"),
                   None if fields["trump"] == "-" else fields["trump"], hands,
                   round=_number(shown.get("round", "-"), "round"),
                   dealer=_number(shown.get("dealer", "-"), "dealer"),
                   bids=_bids(shown.get("bids", "")),
                   taken=_numbers(shown.get("taken") or "-", "taken"),
                   totals=_numbers(shown.get("totals") or "-", "totals"),
                   trick=_trick(shown.get("trick", "")), call=shown.get("call"))


def _bids(text: str) -> tuple[int | None, ...]:
    return tuple(_number(b, "bids") for b in text.split(",")) if text else ()


def _trick(text: str) -> tuple[tuple[int, str], ...]:
    plays = []
    for play in text.split(",") if text else ():
        seat, _, card = play.partition(":")
        if not (seat.isascii() and seat.isdigit() and card):
            raise WireError(f"bad trick='{shown(text, 40)}': expected <seat>:<card>,...")
        plays.append((int(seat), card))
    return tuple(plays)


Said = SayNames | SayTable | SayWhyWon | SayRound | SayDim | SayCoach | SayNote \
    | SayChatRefused | SayResult | Heard
"""Every line the web app adds for the page."""

SAY_KINDS: dict[str, type[_Say]] = {kind.KIND: kind for kind in (
    SayNames, SayTable, SayWhyWon, SayRound, SayDim, SayCoach, SayNote, SayChatRefused,
    SayResult)}


def parse_said(line: str) -> Said | Other:
    """A line the web app sends the page: a ``say`` kind or a chat message; any other
    line (the player protocol's) is an :class:`Other`. WireError for a malformed one."""
    words = split_blanks(line, 2)
    match words[:1]:
        case ["chat"] if len(words) == 3:
            return Heard(words[1], words[2])
        case ["say"] if len(words) >= 2 and words[1] in SAY_KINDS:
            return cast("Said", SAY_KINDS[words[1]]._read(words[2] if len(words) > 2 else ""))
        case ["chat" | "say"]:
            raise WireError(f"expected say <kind> ... or chat <name> <text>, got "
                            f"'{shown(line, 60)}'")
    return Other(words[0] if words else "", line)
