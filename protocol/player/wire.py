"""The player protocol's lines (spec/PLAYER.md), formatted and parsed in one place.

Every side of the protocol (the bot side: PlayerSession and the lean random bot; the host
side: bot processes, remote bots, the table server's seats; the REPL in a remote seat,
``connect``'s relay, the web's narrator) writes and reads its lines here, so a line has
one spelling and one reading: :func:`parse` turns a line into a typed value (``Go``,
``EventLine``, ``Answer``, ``ServerError``...), as lila-ws's ``ClientOut.parse`` or h11's
readers do, and every reader matches on its type (``match wire.parse(line): case Go():``),
never on the line's first word (tests/test_wire_lines.py holds every module to it). The text
forms import only the standard library, because ``xactika bot random`` must start
without the core (tests/test_startup.py); the few functions that build core values
(``legal_from_go``, ``parse_answer``) import it when called; a ``go``'s options and the
answers to them come from tables built once per card (options.py). Event lines are the referee
protocol's (PROTOCOL.md section 5, ``xactika.protocol.notation.text``): here only their
sequence number is read.

A malformed line raises :class:`WireError` (a ValueError) with one line saying what was
expected, any text of the line in it escaped; the functions that read cards and calls
with a game's rules raise the core's ParseError (a ValueError too).
"""

from __future__ import annotations

from xactika.protocol.notation.blanks import split_blanks
from xactika.protocol.player.options import answer_command, has_calls, options_text
from xactika.protocol.player.options import go_options as go_options

TYPE_CHECKING = False  # as typing's, which the lean bot does not load; mypy reads True
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from xactika.core.engine.api import Command, Legal, TrickGame

PROTOCOL_VERSION = 1
"""The player protocol's version: the host says ``hello 1``, the bot answers it back."""

MAX_LINE = 4096  # bytes in one line, its ending not counted, in either direction
MAX_LINES = 1000  # lines (info included) a bot may send between two requests
NAME_LIMIT = 40  # characters of a self-given name kept by a host

ISREADY = "isready"
READYOK = "readyok"
QUIT = "quit"
LEAVE = "leave"  # a person's seat at a table server: gone for good (SERVER.md section 2)
KINDS = ("bid", "lead", "play")  # what a go asks for
ANSWERS = ("bid", "play")  # the first words of an answer to a go


class WireError(ValueError):
    """A line that is not the player protocol; the message says what was expected."""


class _Value:
    """A parsed line: immutable, equal by its fields, shown with them, matched by them
    (``case Go(kind, options)``); no dataclasses or attrs, which the lean bot does not
    load (tests/test_startup.py)."""

    __slots__: tuple[str, ...] = ()
    _order: tuple[str, ...] = ()  # the fields, in the order of the line

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _set(self, **values: object) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def _line(self) -> str:
        raise NotImplementedError

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._order)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Value) and type(other) is type(self) and (
            self._fields() == other._fields())

    def __hash__(self) -> int:
        return hash((type(self), repr(self._fields())))

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._order)
        return f"{type(self).__name__}({shown})"


Value = _Value
"""The base of every typed line, here and in the sibling readers (protocol/net/lines.py,
protocol/net/weblines.py)."""


def first_word(line: str) -> str:
    """The command word of a line ("" for a blank one)."""
    words = split_blanks(line, 1)
    return words[0] if words else ""


def shown(text: str, limit: int = 60) -> str:
    """Text from a line, safe to put in a message: printable (a no-break space too, which
    :func:`escape` keeps, as \\xa0)."""
    from xactika.protocol.notation.untrusted import escape  # unicodedata: not at start-up

    said = escape(text, limit)
    return said if said.isprintable() else "".join(
        ch if ch.isprintable() else f"\\x{ord(ch):02x}" if ord(ch) < 0x100
        else f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}" for ch in said)


def fields_of(words: Sequence[str]) -> dict[str, str]:
    """``key=value`` words as a dict; a word without ``=`` maps to "" (and is ignored)."""
    return dict(w.partition("=")[::2] for w in words)


# --------------------------------------------------------------------------- names


def bot_name(text: str) -> str:
    """The name a bot gives itself: no spaces (they separate words), never empty."""
    return "-".join(text.split()) or "bot"


def clean_name(text: str) -> str:
    """A name a bot or seat gave itself, as every host keeps it (the server's handshake,
    TCP and web alike, and the process host): NFKC-normalised (a fullwidth ``ａ`` is an
    ``a``), format characters (zero-width, bidi) dropped, parentheses as ``_`` (the pages
    label seats ``(you)``, ``(bot)``, ``(watching)``), escaped (it is untrusted text, shown
    in messages and stored in records), clipped to :data:`NAME_LIMIT` and without commas
    (a record's ``seats`` header lists names with them)."""
    import unicodedata  # not at start-up

    text = "".join("_" if _parenthesis(ch) else ch
                   for ch in unicodedata.normalize("NFKC", text)
                   if unicodedata.category(ch) != "Cf")
    return shown(text, NAME_LIMIT).replace(",", "_")


def name_key(name: str) -> str:
    """What two names are compared by, so look-alikes cannot share a table: NFKC, case
    folded, format characters dropped (``ａnn``, ``Ann`` and ``ann\u200b`` are one)."""
    import unicodedata

    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")


def _parenthesis(ch: str) -> bool:
    import unicodedata

    return ch in "()" or (unicodedata.category(ch) in ("Ps", "Pe")
                          and "PARENTHESIS" in unicodedata.name(ch, ""))


# --------------------------------------------------------------------------- hello


class Hello(_Value):
    """``hello <version> [name=<name>] [kind=<kind>] [key=value...]``, either way.

    The host sends ``hello 1``; the bot answers ``hello 1 name=<name>``. ``kind`` is
    carried for a seat that will say what it is (``kind=human``); no host acts on it yet.
    Other fields (``author=``...) are kept in ``fields`` and otherwise ignored.
    """

    __slots__ = ("fields", "kind", "name", "version")
    __match_args__ = _order = ("version", "name", "kind", "fields")
    version: int
    name: str | None
    kind: str | None
    fields: dict[str, str]

    def __init__(self, version: int = PROTOCOL_VERSION, name: str | None = None,
                 kind: str | None = None, fields: dict[str, str] | None = None) -> None:
        self._set(version=version, name=name, kind=kind, fields=dict(fields or {}))


    def _line(self) -> str:
        return format_hello(self)


def format_hello(hello: Hello | None = None) -> str:
    """``hello 1`` (the host's), or a bot's answer with its fields."""
    hello = hello if hello is not None else Hello()
    words = [f"hello {hello.version}"]
    if hello.name is not None:
        words.append(f"name={bot_name(hello.name)}")
    if hello.kind is not None:
        words.append(f"kind={bot_name(hello.kind)}")
    words += [f"{key}={value}" for key, value in hello.fields.items()]
    return " ".join(words)


def hello_answer(name: str) -> str:
    """The bot's answer to ``hello``: ``hello 1 name=<name>``."""
    return format_hello(Hello(name=name))


def standard_reply(message: Msg, name: str) -> str | None:
    """A seat's answer to the requests every seat answers alike (``hello``, ``isready``),
    for a seat that is not a :class:`~xactika.protocol.player.botside.BotSide` (the REPL's
    remote seat); None for any other line."""
    match message:
        case Hello():
            return hello_answer(name)
        case IsReady():
            return READYOK
    return None


def parse_hello(line: str) -> Hello:
    """A ``hello`` line; WireError unless it is ``hello <version> ...`` (a plain number)."""
    words = split_blanks(line)
    if not words or words[0] != "hello":
        raise WireError(f"expected 'hello {PROTOCOL_VERSION} name=<name>'")
    version = words[1] if len(words) > 1 else "none"
    if not (version.isascii() and version.isdigit() and version == str(int(version))):
        raise WireError(f"speaks protocol version {shown(version, 20)}, "
                        f"expected 'hello {PROTOCOL_VERSION} name=<name>'")
    fields = fields_of(words[2:])
    fields.pop("", None)
    name = fields.pop("name", None) or None
    kind = fields.pop("kind", None) or None
    return Hello(int(words[1]), name, kind, fields)


# --------------------------------------------------------------------------- newgame


class NewGame(_Value):
    """``newgame seat=<s> [key=value...]``: the seat, and any other field (a person's
    ``names=``, percent-quoted; SERVER.md section 2) in ``fields``."""

    __slots__ = ("fields", "seat")
    __match_args__ = _order = ("seat", "fields")
    seat: int
    fields: dict[str, str]

    def __init__(self, seat: int, fields: dict[str, str] | None = None) -> None:
        self._set(seat=seat, fields=dict(fields or {}))

    def _line(self) -> str:
        return " ".join([format_newgame(self.seat),
                         *(f"{key}={value}" for key, value in self.fields.items())])


def format_newgame(seat: int) -> str:
    return f"newgame seat={seat}"


def _newgame(line: str, words: list[str]) -> NewGame:
    fields = fields_of(words[1:])
    seat = parse_newgame(words)
    fields.pop("seat", None)
    fields.pop("", None)
    return NewGame(seat, fields)


def parse_newgame(words: Sequence[str]) -> int:
    """The seat of a ``newgame seat=<s>`` line's words (other fields are ignored)."""
    seat = fields_of(words[1:]).get("seat", "")
    if not (seat.isascii() and seat.isdigit()):
        raise WireError(f"expected newgame seat=<n>, got seat='{shown(seat)}'")
    return int(seat)


# --------------------------------------------------------------------------- event


class EventLine(_Value):
    """``event <seq> <kind> key=value...``: its sequence number and kind, and the whole
    line (``text``), which the referee protocol's ``parse_event`` reads with the rules."""

    __slots__ = ("kind", "seq", "text")
    __match_args__ = _order = ("seq", "kind", "text")
    seq: int
    kind: str
    text: str

    def __init__(self, seq: int, kind: str, text: str) -> None:
        self._set(seq=seq, kind=kind, text=text)

    def _line(self) -> str:
        return self.text


def _event(line: str, words: list[str]) -> EventLine:
    """The words the referee protocol's ``parse_event`` reads first, with its messages."""
    if len(words) < 3:
        raise WireError("expected an event line: event <seq> <kind> key=value ...")
    if not (words[1].isascii() and words[1].isdigit()):
        raise WireError(f"bad event seq '{shown(words[1], 20)}': expected a number")
    return EventLine(int(words[1]), words[2], line)


# --------------------------------------------------------------------------- go


class Go(_Value):
    """``go <kind> options=<o>,<o>,... [time=<ms>]``: the options as text, in order."""

    __slots__ = ("kind", "options", "time_ms")
    __match_args__ = _order = ("kind", "options", "time_ms")
    kind: str
    options: tuple[str, ...]
    time_ms: int | None

    def __init__(self, kind: str, options: Sequence[str], time_ms: int | None = None) -> None:
        self._set(kind=kind, options=tuple(options), time_ms=time_ms)

    def bids(self) -> tuple[int, ...]:
        """A ``go bid``'s options as numbers."""
        try:
            return tuple(int(o) for o in self.options)
        except ValueError:
            raise WireError(f"go bid with an option that is not a number: "
                            f"'{shown(','.join(self.options))}'") from None


    def _line(self) -> str:
        return format_go_line(self)


def format_go_line(go: Go) -> str:
    if go.kind not in KINDS or not go.options:
        raise WireError("a go needs a kind (bid, lead or play) and at least one option")
    line = f"go {go.kind} options={','.join(go.options)}"
    return line if go.time_ms is None else f"{line} time={go.time_ms}"


def parse_go(words: Sequence[str]) -> Go:
    """A ``go`` line's words; unknown fields are ignored, a ``time`` not a number too."""
    if len(words) < 3 or words[1] not in KINDS:
        raise WireError("expected go <bid|lead|play> options=... [time=<ms>]")
    fields = fields_of(words[2:])
    options = [o for o in fields.get("options", "").split(",") if o]
    if not options:
        raise WireError("go without options=")
    time = fields.get("time", "")
    return Go(words[1], options, int(time) if time.isascii() and time.isdigit() else None)


def format_go(legal: Legal, rules: TrickGame, time_ms: int | None = None) -> str:
    """The ``go`` line: the kind, every legal option and the optional time budget."""
    if legal.seat is None:
        raise ValueError("nobody may act: there is nothing to ask")
    line = f"go {legal.kind} options={options_text(legal, rules)}"  # from tables
    return line if time_ms is None else f"{line} time={time_ms}"


def legal_from_go(go: Go, seat: int, rules: TrickGame) -> Legal:
    """The Legal a ``go`` offers ``seat``; the rules read its cards (ParseError if not)."""
    from xactika.core.engine.api import Legal

    if go.kind == "bid":
        return Legal(seat, "bid", bids=go.bids())
    cards: list[object] = []
    for option in go.options:
        card = rules.parse_card(option.partition(":")[0])
        if card not in cards:
            cards.append(card)
    return Legal(seat, go.kind, cards=tuple(cards), rules=rules)


# --------------------------------------------------------------------------- answers


def format_bid(bid: int | str) -> str:
    return f"bid {bid}"


def format_play(card: object, call: str | None = None) -> str:
    """``play <card>``, or ``play <card> <call>`` for a lead that names its call."""
    return f"play {card}" if call is None else f"play {card} {call}"


def answer_line(command: Command, rules: TrickGame) -> str:
    """A bot's answer naming ``command`` (a Bid or a Play)."""
    if hasattr(command, "bid"):
        return format_bid(command.bid)
    call = command.call
    return format_play(command.card, None if call is None else rules.format_call(call))


def parse_answer(line: str, legal: Legal, rules: TrickGame) -> Command:
    """The command a ``bid``/``play`` answer names; ParseError says why it is not legal."""
    command: Command | None = answer_command(line, legal, rules)  # an option, looked up
    if command is not None:
        return command
    from xactika.core.engine.api import Bid, Play
    from xactika.core.engine.errors import ParseError

    words = split_blanks(line)
    seat = legal.seat if legal.seat is not None else -1
    if legal.kind == "bid":
        if len(words) != 2 or words[0] != "bid":
            raise ParseError("expected bid <n> to answer go bid")
        try:
            command = Bid(seat, int(words[1]))
        except ValueError:
            raise ParseError(f"bad bid {words[1]!r}: expected a number") from None
    else:
        if not words or words[0] != "play" or len(words) not in (2, 3):
            raise ParseError(f"expected {_expected(legal)} to answer go {legal.kind}")
        card = rules.parse_card(words[1])
        call = rules.parse_call(words[2]) if len(words) == 3 else None
        command = Play(seat, card, call)
        if legal.kind == "lead" and call is None and has_calls(legal):
            raise ParseError(f"a lead must name its call: expected {_expected(legal)}")
        if legal.kind == "play" and call is not None:
            raise ParseError(f"only the leader makes a call: expected {_expected(legal)}")
    if command not in legal:
        raise ParseError("not one of the options offered")
    return command


def _expected(legal: Legal) -> str:
    """The answer's shape, for an error message (not worked out for a good answer)."""
    return "play <card> <call>" if has_calls(legal) else "play <card>"


def is_answer(line: str) -> bool:
    """A ``bid``/``play`` line: an answer to a go, whenever it comes (well formed or not:
    its shape is checked against the go, ``parse_answer``)."""
    return isinstance(read(line), Answer)


# --------------------------------------------------------------------------- info


def format_info(text: str) -> str:
    """``info <text>``: a note for people, on one line whatever ``text`` holds."""
    return "info " + " ".join(text.splitlines())


def is_info(line: str) -> bool:
    """An ``info`` line: a note for people, never an answer nor a fault."""
    return "info" in line and isinstance(read(line), Info)  # most lines: no read at all


# --------------------------------------------------------------------------- result


RESULT = "result"


class Outcome(_Value):
    """Who won, as a table server's record says it in its ``result`` line
    (spec/SERVER.md section 6): ``game-over``'s winners less any forfeited seat, the
    seats that forfeited (they cannot win), and the totals."""

    __slots__ = ("forfeited", "totals", "winners")
    __match_args__ = _order = ("winners", "forfeited", "totals")
    winners: tuple[int, ...]
    forfeited: tuple[int, ...]
    totals: tuple[int, ...]

    def __init__(self, winners: Sequence[int], forfeited: Sequence[int],
                 totals: Sequence[int]) -> None:
        self._set(winners=tuple(winners), forfeited=tuple(forfeited), totals=tuple(totals))


    def _line(self) -> str:
        return format_result(self)


def _seats(seats: Sequence[int]) -> str:
    return ",".join(str(s) for s in seats) or "-"


def format_result(outcome: Outcome) -> str:
    """``result winners=1 forfeited=0 totals=-5,-3`` (``-`` for no seat)."""
    return (f"{RESULT} winners={_seats(outcome.winners)} "
            f"forfeited={_seats(outcome.forfeited)} totals={_seats(outcome.totals)}")


def parse_result(words: Sequence[str]) -> Outcome:
    """A ``result`` line's words; unknown fields are ignored, as on every line."""
    fields = fields_of(words[1:])

    def numbers(key: str, signed: bool = False) -> tuple[int, ...]:
        text = fields.get(key, "-")
        if text == "-":
            return ()
        try:
            values = tuple(int(v) for v in text.split(","))
        except ValueError:
            values = ()
        if not values or (not signed and min(values) < 0):
            raise WireError(f"expected result winners=<seats> forfeited=<seats> "
                            f"totals=<totals>, got {key}='{shown(text)}'")
        return values

    outcome = Outcome(numbers("winners"), numbers("forfeited"), numbers("totals", True))
    if any(s >= len(outcome.totals) for s in (*outcome.winners, *outcome.forfeited)):
        raise WireError("a result names a seat beyond its totals")
    return outcome


# --------------------------------------------------------------------------- one reader


class _Word(_Value):
    """A line that is its command word alone (further words are ignored, as ever)."""

    __slots__ = ()
    __match_args__ = ()
    WORD = ""

    def _line(self) -> str:
        return self.WORD


class IsReady(_Word):
    """``isready``: a ping; the answer is ``readyok``."""

    __slots__ = ()
    WORD = ISREADY


class ReadyOk(_Word):
    """``readyok``: the answer to ``isready``."""

    __slots__ = ()
    WORD = READYOK


class Quit(_Word):
    """``quit``: the session is over."""

    __slots__ = ()
    WORD = QUIT


class _Text(_Value):
    """A line that is its command word and free text (``text``, as sent)."""

    __slots__ = ("text",)
    __match_args__ = _order = ("text",)
    text: str
    WORD = ""

    def __init__(self, text: str = "") -> None:
        self._set(text=text)

    def _line(self) -> str:
        return f"{self.WORD} {self.text}" if self.text else self.WORD


class Info(_Text):
    """``info <free text>``: a note for people, either way; never a request, answer or fault."""

    __slots__ = ()
    WORD = "info"

    def _line(self) -> str:
        return format_info(self.text) if self.text else self.WORD


class Seated(_Text):
    """``seated table=<id> seat=<s> players=<n>`` (a server's table), or ``seated match
    bot=<name>`` (a match's remote seat): SERVER.md sections 2 and 8."""

    __slots__ = ()
    WORD = "seated"


class ServerError(_Text):
    """``error <why>``: the server's one-line refusal, after which it closes (SERVER.md 6)."""

    __slots__ = ()
    WORD = "error"


class Answer(_Value):
    """``bid <n>`` or ``play <card> [<call>]``: a bot's answer to a go. Only the command
    word is read here; its shape and legality, against the go, by :func:`parse_answer`
    (a malformed answer is an illegal move, not garbage: PLAYER.md section 5)."""

    __slots__ = ("args", "word")
    __match_args__ = _order = ("word", "args")
    word: str
    args: tuple[str, ...]

    def __init__(self, word: str, args: Sequence[str] = ()) -> None:
        self._set(word=word, args=tuple(args))

    def _line(self) -> str:
        return " ".join((self.word, *self.args))


class Watching(_Value):
    """``watching table=<id> [names=<n>,...]``: an observer's first line (SERVER.md section
    4); ``names`` percent-quoted, as a person's ``newgame`` has them, "" for a seat unnamed."""

    __slots__ = ("names", "table")
    __match_args__ = _order = ("table", "names")
    table: str
    names: str | None

    def __init__(self, table: str, names: str | None = None) -> None:
        self._set(table=table, names=names)

    def _line(self) -> str:
        named = "" if self.names is None else f" names={self.names}"
        return f"watching table={self.table}{named}"


class TakeSeat(_Value):
    """``seat TOKEN [resume=<seq>]``: a client's first line (SERVER.md sections 3 and 8)."""

    __slots__ = ("resume", "token")
    __match_args__ = _order = ("token", "resume")
    token: str
    resume: int | None

    def __init__(self, token: str, resume: int | None = None) -> None:
        self._set(token=token, resume=resume)

    def _line(self) -> str:
        return f"seat {self.token}" + ("" if self.resume is None else f" resume={self.resume}")


class Other(_Value):
    """A line whose command word no reader here knows (``word``; "" for a blank line):
    what to do with it is the reader's business (a bot ignores it, PLAYER.md section 3)."""

    __slots__ = ("text", "word")
    __match_args__ = _order = ("word", "text")
    word: str
    text: str

    def __init__(self, word: str, text: str) -> None:
        self._set(word=word, text=text)

    def _line(self) -> str:
        return self.text


class Malformed(_Value):
    """A line of a known command word that does not read (``why``, safe to show; ``wanted``
    the type it would have been): only :func:`read` gives it, for relays and classifiers
    that pass a line on or name it (``case Malformed(wanted=Go)``)."""

    __slots__ = ("text", "wanted", "why", "word")
    __match_args__ = _order = ("word", "text", "why", "wanted")
    word: str
    text: str
    why: str
    wanted: type[_Value]

    def __init__(self, word: str, text: str, why: str, wanted: type[_Value]) -> None:
        self._set(word=word, text=text, why=why, wanted=wanted)

    def _line(self) -> str:
        return self.text


Msg = (Hello | IsReady | ReadyOk | NewGame | EventLine | Go | Answer | Info | Outcome | Quit
       | Seated | ServerError | Watching | TakeSeat | Other | Malformed)
"""Every line, typed: what :func:`parse` returns (a :class:`Malformed` only from :func:`read`)."""


def _rest(line: str) -> str:
    """The text after a line's command word."""
    words = split_blanks(line, 1)
    return words[1] if len(words) > 1 else ""


def _told(line: str, shape: str) -> str:
    """The text of a line that must say something after its word."""
    text = _rest(line)
    if not text:
        raise WireError(f"expected {shape}")
    return text


def _watching(line: str, words: list[str]) -> Watching:
    fields = fields_of(words[1:])
    table = fields.get("table", "")
    if not table or not words[1].startswith("table=") or len(words) > 3 or (
            len(words) == 3 and not words[2].startswith("names=")):
        raise WireError(f"expected watching table=<id> [names=...], got '{shown(line, 80)}'")
    return Watching(table, fields.get("names"))


def _take_seat(line: str, words: list[str]) -> TakeSeat:
    resume: int | None = None
    if len(words) == 3:
        key, _, value = words[2].partition("=")
        if key == "resume" and value.isascii() and value.isdigit() and len(value) < 10:
            resume = int(value)
    if len(words) not in (2, 3) or (len(words) == 3 and resume is None):
        raise WireError("expected 'seat TOKEN' or 'seat TOKEN resume=SEQ'")
    return TakeSeat(words[1], resume)


_READERS: dict[str, tuple[type[_Value], Callable[[str, list[str]], Msg]]] = {
    "hello": (Hello, lambda line, words: parse_hello(line)),
    ISREADY: (IsReady, lambda line, words: IsReady()),
    READYOK: (ReadyOk, lambda line, words: ReadyOk()),
    "newgame": (NewGame, _newgame),
    "event": (EventLine, _event),
    "go": (Go, lambda line, words: parse_go(words)),
    **{word: (Answer, lambda line, words: Answer(words[0], words[1:])) for word in ANSWERS},
    "info": (Info, lambda line, words: Info(_rest(line))),
    RESULT: (Outcome, lambda line, words: parse_result(words)),
    QUIT: (Quit, lambda line, words: Quit()),
    "seated": (Seated, lambda line, words: Seated(_told(line, "seated table=<id> ..."))),
    "error": (ServerError, lambda line, words: ServerError(_told(line, "error <why>"))),
    "watching": (Watching, _watching),
    "seat": (TakeSeat, _take_seat),
}
"""Each command word's type and reader (its line and words; WireError if malformed)."""


def parse(line: str) -> Msg:
    """The typed value of one line (without its ending), whichever side sent it: the
    player protocol's (spec/PLAYER.md) and a server's seat lines (spec/SERVER.md). A line
    of a known command word that does not read raises :class:`WireError` (one line, its
    text escaped); any other word is an :class:`Other`, for its reader to judge."""
    words = split_blanks(line)
    if not words:
        return Other("", line)
    entry = _READERS.get(words[0])
    return Other(words[0], line) if entry is None else entry[1](line, words)


def read(line: str) -> Msg:
    """:func:`parse`, with a malformed line as a :class:`Malformed` instead of an error."""
    try:
        return parse(line)
    except WireError as exc:
        word = first_word(line)
        return Malformed(word, line, str(exc), _READERS[word][0])


def format_line(message: _Value) -> str:
    """The line of a typed value: ``parse(format_line(m)) == m``."""
    return message._line()


# --------------------------------------------------------------------------- handshake


def expect(line: str, words: Sequence[str], doing: str) -> str:
    """``line`` if its first word is one of ``words``; WireError naming what came."""
    if first_word(line) not in words:
        want = " or ".join(repr(w) for w in words)
        raise WireError(f"sent '{shown(line, 80)}' while {doing}: expected {want}")
    return line


class Handshake:
    """The host's side of the start of a session, sans-I/O, shared by every host (bot
    processes, remote bots, the table server's seats).

    ``request()`` is the next line to send (``hello 1``, then ``isready``; None when the
    handshake is done), ``receive(answer)`` checks the bot's answer to it and raises
    WireError (its message safe to show) for a wrong one. ``hello`` is the bot's
    :class:`Hello` once it has answered. Each host brings its own I/O and time limits.
    """

    REQUESTS = (format_hello(), ISREADY)

    def __init__(self) -> None:
        self.hello: Hello | None = None
        self._step = 0

    def request(self) -> str | None:
        return self.REQUESTS[self._step] if self._step < len(self.REQUESTS) else None

    @property
    def doing(self) -> str:
        """What the bot is doing while the host waits, for messages."""
        return f"answering {first_word(self.REQUESTS[min(self._step, 1)])}"

    def receive(self, answer: str) -> None:
        if self._step == 0:
            expect(answer, ("hello",), self.doing)
            hello = parse_hello(answer)
            if hello.version != PROTOCOL_VERSION:
                raise WireError(f"speaks protocol version {hello.version}, expected "
                                f"'hello {PROTOCOL_VERSION} name=<name>'")
            self.hello = hello
        elif self._step == 1:
            expect(answer, (READYOK,), self.doing)
        else:
            raise WireError("the handshake is over: nothing was asked")
        self._step += 1

    @property
    def done(self) -> bool:
        return self._step >= len(self.REQUESTS)
