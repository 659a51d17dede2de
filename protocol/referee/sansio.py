"""The referee protocol session, sans-I/O: one line in, the lines to send back out.

Everything spec/PROTOCOL.md promises lives here, so it is tested without processes;
``xactika engine`` (frontends/stdio/engine.py via protocol/referee/stdio.py) only moves lines.
A command's new state is computed first and committed only when nothing failed, so an
error never changes anything.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs

from xactika.core import __version__
from xactika.core.engine.api import (
    EMPTY,
    Bid,
    Command,
    Event,
    GameStarted,
    Play,
    State,
    TrickGame,
    evolve,
    game_rules,
    legal_actions,
    start,
    step,
)
from xactika.core.engine.check import LogCheck, command_of
from xactika.core.engine.errors import (
    ConfigError,
    IllegalCommand,
    InvalidEvent,
    ParseError,
    WrongPhase,
    XactikaError,
)
from xactika.core.engine.rng import fresh_seed
from xactika.core.engine.views import visible
from xactika.protocol.notation.text import (
    config_from_pairs,
    format_event,
    game_option_types,
    parse_event,
    split_pairs,
)
from xactika.protocol.notation.untrusted import escape, is_safe
from xactika.protocol.records.assemble import RecordFacts, record_headers
from xactika.protocol.records.files import Folder, PathRefused, bounded_lines
from xactika.protocol.records.textform import (
    BLANKS,
    MAX_HEADER_BYTES,
    MAX_HEADERS,
    MAX_LINE,
    MAX_RECORD_LINES,
    RECORD_VERSION,
    RecordError,
    RecordWriter,
    check_header,
    format_record,
    iter_record_lines,
    parse_header,
    split_blanks,
)
from xactika.protocol.trust.signing import Signer
from xactika.protocol.trust.tamper import commit_config, commitment_problem, new_nonce

PROTOCOL_VERSION = 1
ENGINE_NAME = "xactika"
FINAL_WORDS = ("ok", "error", "readyok")

USAGE: dict[str, str] = {
    "hello": "hello [<protocol-version>]",
    "isready": "isready",
    "commands": "commands",
    "known": "known <command>",
    "newgame": "newgame [game=<g>] [mode=<m>] [players=<n>] [rounds=<n>] [dealer=<s>] "
    "[seed=<n> [nonce=<hex>] | deals=<deals>]" + "".join(  # and each game's own settings
        f" [{key}=<{'n' if kind is int else 'word'}>]"
        for key, kind in game_option_types().items()),
    "bid": "bid <seat> <bid>",
    "play": "play <seat> <card> [<call>]",
    "event": "event <seq> <kind> key=value ...",
    "header": "header <key> [<value>]",
    "turn": "turn",
    "show": "show",
    "log": "log",
    "load": "load <path>",
    "record": "record <path> | record off",
    "view": "view all | view <seat>",
    "sig": "sig events=<n> head=<hex> ed25519=<hex>",
    "result": "result <words>",
    "quit": "quit",
}


class ProtocolError(XactikaError):
    """A line that is not a well-formed command; ``code`` says which way."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class EventLog:
    """An append-only log shared between successive games' values.

    ``extend`` appends in place when this value is the newest one (the common case: a
    command's events), so a game of n events costs O(n), not O(n^2) tuple copies; older
    values keep seeing only their own prefix.
    """

    __slots__ = ("_items", "_n")

    def __init__(self, items: Sequence[Event] = (), *, _shared: list[Event] | None = None,
                 _n: int | None = None) -> None:
        self._items: list[Event] = _shared if _shared is not None else list(items)
        self._n = len(self._items) if _n is None else _n

    def extend(self, new: Sequence[Event]) -> EventLog:
        if not new:
            return self
        items = self._items
        if len(items) != self._n:
            items = items[: self._n]
        items.extend(new)
        return EventLog(_shared=items, _n=len(items))

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[Event]:
        return iter(self._items[: self._n])

    def __getitem__(self, i: int) -> Event:
        if not -self._n <= i < self._n:
            raise IndexError(i)
        return self._items[i % self._n]

    def tuple(self) -> tuple[Event, ...]:
        return tuple(self._items[: self._n])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventLog):
            return self._n == other._n and self.tuple() == other.tuple()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.tuple())


class Game:
    """One game as the session holds it; replaced whole on every commit, never changed.

    ``check`` trails ``state`` while recorded derived events are still to be confirmed
    by ``event`` lines (a record piped in); None when it is level with ``state``.
    ``log`` always replays to ``state``. (A plain class: attrs' code generation would
    cost the engine's start-up more than this saves.)
    """

    __slots__ = ("check", "headers", "log", "state")

    def __init__(self, state: State = EMPTY, log: EventLog | None = None,
                 check: LogCheck | None = None,
                 headers: tuple[tuple[str, str], ...] = ()) -> None:
        self.state = state
        self.log = EventLog() if log is None else log
        self.check = check
        self.headers = headers

    def _key(self) -> tuple[Any, ...]:
        return (self.state, self.log, self.check, self.headers)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


def _clean(text: str) -> str:
    """One safe line of bounded length, whatever an exception's message held."""
    text = " ".join(text.split())
    return escape(text, 2000) if len(text) > 2000 or not is_safe(text) else text


def _safe(lines: list[str]) -> list[str]:
    """Every line the engine writes is one printable line: nothing can forge framing."""
    joined = "".join(lines)
    if joined.isascii() and joined.isprintable():  # nearly always: one check for all
        return lines
    return [line if is_safe(line) else escape(line) for line in lines]


# room the engine keeps in a record for the headers it adds itself (record, game, mode,
# players, seed, date, and the signature's), so a record it writes reads back
_OWN_HEADERS = 16
_HEADER_LINE = len("header  ")
_CHAIN_TOKEN = len(" h=") + 64  # the hash-chain token a record line ends in


def _utc_now() -> str:
    import time  # cheaper at start-up than datetime

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _option(rules: TrickGame, card: Any, call: Any) -> str:
    return str(card) if call is None else f"{card}:{rules.format_call(call)}"


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[:width] + "..."


def advance(check: LogCheck, state: State, event: Event) -> tuple[LogCheck, State, list[Event]]:
    """Apply a recorded event: (check, live state, events new to the log).

    ``check`` (core/engine/check.py) decides whether the event follows from the rules. The live
    state already holds the derived events the check still expects, so confirming one
    adds nothing; an action that skips them is checked against the live state.
    """
    if check.pending and event.seq == state.seq + 1:
        check = LogCheck(state)  # the derived events it owed are already in the log
    if check.pending:
        return check.apply(event), state, []
    check = check.apply(event)  # with no debt, check.state is the live state
    new = [event, *check.pending]
    live = EMPTY if isinstance(event, GameStarted) else state
    for e in new:
        live = evolve(live, e)
    return check, live, new


class RefereeSession:
    """Feed it lines; it returns the lines to send, the last one always final.

    ``seat`` runs the session as that seat's view (``None``: omniscient). ``record``
    is a path the log is written to as it grows, one flushed line per event.
    """

    def __init__(
        self,
        *,
        seat: int | None = None,
        record: str | os.PathLike[str] | None = None,
        clock: Callable[[], str] | None = None,
        seeds: Callable[[], int] | None = None,
        nonces: Callable[[], str] | None = None,
        fsync: bool = False,
        signer: Signer | Callable[[], Signer] | None = None,
        files: str | os.PathLike[str] | None = None,
        lock_view: bool = False,
    ) -> None:
        self.seat = seat
        # ``engine --seat S``: the controller may never leave S's view nor roll a game
        # back with ``load`` (play another seat's card, see it taken, load, try the next)
        self.view_locked = lock_view and seat is not None
        # the only folder ``load`` and ``record`` may name files in; None: they are off
        self.files = Folder(files) if files is not None else None
        self.record_confined = False  # record_path came from the protocol, not the operator
        self.fsync = fsync
        self._signer = signer  # signs every record written (spec/TAMPER.md section 6)
        self.game = Game()
        self.pending_headers: tuple[tuple[str, str], ...] = ()
        self.record_path = os.fspath(record) if record is not None else None
        self.writer: RecordWriter | None = None
        self.games_recorded = 0
        self.done = False
        self._option_text: dict[tuple[str, Any], str] = {}  # turn-line options, memoised
        self._clock = clock or _utc_now
        # secret random bits: a seat must not be able to search the seed from its own hand
        self._seeds = seeds or fresh_seed
        self._nonces = nonces or new_nonce
        self._handlers: dict[str, Callable[[list[str], str], list[str]]] = {
            name: getattr(self, "_cmd_" + name) for name in USAGE
        }

    # ------------------------------------------------------------------ state access

    @property
    def state(self) -> State:
        return self.game.state

    @property
    def log(self) -> tuple[Event, ...]:
        return self.game.log.tuple()

    @property
    def rules(self) -> TrickGame | None:
        return None if self.state.phase == "new" else self.state.rules

    # ------------------------------------------------------------------ the entry point

    def feed(self, line: str | bytes) -> list[str]:
        """The lines answering one input line; [] for blank and comment lines."""
        try:
            text = self._decode(line)
        except ProtocolError as exc:
            return [f"error {exc.code} {_clean(str(exc))}"]
        # blank means ASCII blanks only: a line of NBSP or U+3000 is a command, answered
        text = text.strip(BLANKS)
        if not text or text.startswith("#"):
            return []
        args = split_blanks(text)
        word = args.pop(0)
        rest = text[len(word):].lstrip(" \t")  # the rest as it was, for paths and values
        handler = self._handlers.get(word)
        try:
            if handler is None:
                raise ProtocolError(
                    "unknown",
                    f"unknown command {_clip(word)!r}: send 'commands' for the list",
                )
            return _safe(handler(args, rest))
        except XactikaError as exc:
            return [f"error {exc.code} {_clean(str(exc)) or exc.code}"]
        except Exception as exc:  # a bug must not kill the session or lose the game
            return [f"error internal {type(exc).__name__}: {_clean(str(exc))}"]

    def _decode(self, line: str | bytes) -> str:
        if isinstance(line, bytes):
            if len(line.rstrip(b"\r\n")) > MAX_LINE:
                raise ProtocolError(
                    "toolong", f"line is longer than {MAX_LINE} bytes; it was ignored"
                )
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ProtocolError(
                    "utf8",
                    f"invalid UTF-8 at byte {exc.start}: lines must be UTF-8 text; "
                    "the line was ignored",
                ) from None
        elif len(line) > MAX_LINE // 4 and len(
                line.rstrip("\r\n").encode("utf-8", "surrogatepass")) > MAX_LINE:
            raise ProtocolError("toolong", f"line is longer than {MAX_LINE} bytes; it was ignored")
        body = line.rstrip("\r\n")
        if "\n" in body or "\r" in body:
            if "\n" not in body and body.lstrip(BLANKS).startswith("#"):
                return ""  # a comment gets no answer, whatever it holds (PROTOCOL.md 1)
            raise ProtocolError("syntax", "one command per line: the line holds a line break")
        return body

    # ------------------------------------------------------------------ output helpers

    def _format(self, event: Event) -> str:
        shown = event if self.seat is None else visible(event, self.seat)
        rules = None if isinstance(event, GameStarted) else self.state.rules
        return format_event(shown, rules)

    def _turn_line(self, state: State | None = None) -> str:
        state = self.state if state is None else state
        if state.phase == "new":
            return "turn none"
        legal = legal_actions(state)
        if legal.seat is None:
            return "turn none"
        head = f"turn {legal.kind} seat={legal.seat}"
        if self.seat is not None and legal.seat != self.seat:
            return head  # another seat's options would show its hand
        if legal.kind == "bid":
            return f"{head} options={','.join(map(str, legal.bids)) or '-'}"
        memo = self._option_text  # card -> its options' text, built once per card
        kind = legal.kind
        options = []
        for card in legal.cards:
            key = (kind, card)
            text = memo.get(key)
            if text is None:
                calls = legal.calls(card)
                text = memo[key] = ",".join(_option(state.rules, card, c) for c in calls)
            options.append(text)
        return f"{head} options={','.join(options) if options else '-'}"

    def _need_game(self) -> TrickGame:
        if self.state.phase == "new":
            raise WrongPhase("no game: start one with newgame, event or load")
        return self.state.rules

    def _seat(self, text: str, what: str = "seat") -> int:
        try:
            return int(text)
        except ValueError:
            raise ParseError(f"bad {what} {_clip(text)!r}: expected a number") from None

    # ------------------------------------------------------------------ committing

    def _commit(self, game: Game, new: Sequence[Event], *, fresh: bool) -> list[str]:
        """Make ``game`` current; print ``new`` events and the turn line; record them."""
        out: list[str] = []
        self._check_size(game, fresh)
        if fresh:
            players = game.state.config.players
            if self.seat is not None and self.seat >= players:
                raise ConfigError(
                    f"the view is seat {self.seat} but this game has seats 0 to {players - 1}: "
                    "send 'view all' or 'view <seat>' first"
                )
            writer = self._writer_for_next(game)  # may raise: nothing has changed yet
            if self.writer is not None:
                self.writer.close()
            self.writer = writer
            self.pending_headers = ()
        elif self.writer is not None:
            try:
                for event in new:
                    self.writer.write(event)
            except OSError as exc:
                self.writer.close()
                self.writer = None
                out.append(f"info recording stopped: cannot write: {exc.strerror}")
        self.game = game
        out[:0] = [self._format(e) for e in new]
        if new:
            out.insert(len(new), self._turn_line())
        return out

    def _check_size(self, game: Game, fresh: bool) -> None:
        """Refuse a game whose record the engine's own readers would refuse."""
        if len(game.log) + len(game.headers) + _OWN_HEADERS > MAX_RECORD_LINES:
            raise ProtocolError("limit", f"the game's record would pass {MAX_RECORD_LINES} "
                                "lines, more than a record may hold")
        if fresh and game.log:
            first = format_event(game.log[0], None)
            # with its line end, no longer than a reader takes (as a header line)
            if len(first.encode("utf-8")) + _CHAIN_TOKEN >= MAX_LINE:
                raise ProtocolError("toolong", f"the game-started line would be longer than "
                                    f"{MAX_LINE - 1} bytes in a record: use fewer preset "
                                    "deals")

    def _folder(self) -> Folder:
        if self.files is None:
            raise ProtocolError("path", "load and record are off: this engine was started "
                                "without --files DIR, the one folder they may use")
        return self.files

    def _writer_for_next(self, game: Game) -> RecordWriter | None:
        if self.record_path is None:
            return None
        number = self.games_recorded + 1
        path = self.record_path
        if number > 1:
            stem, ext = os.path.splitext(path)
            path = f"{stem}-{number}{ext}"
        writer = self._start_writer(path, game)
        self.games_recorded = number
        return writer

    def _start_writer(self, path: str, game: Game) -> RecordWriter:
        """A writer with the game so far; an existing file is replaced whole, never cut."""
        signer = self._record_signer()
        try:
            if not self.record_confined:  # the operator's own --record path
                return RecordWriter(path, game.headers, game.log, fsync=self.fsync,
                                    signer=signer)
            with self._folder().place(path) as (folder, name):
                return RecordWriter(name, game.headers, game.log, fsync=self.fsync,
                                    signer=signer, dir_fd=folder)
        except PathRefused as exc:
            raise ProtocolError("path", f"record {escape(path, 80)!r}: {exc.strerror}") from None
        except OSError as exc:
            raise XactikaError(
                f"cannot write the record {escape(path, 80)!r}: {exc.strerror}") from None

    def _record_signer(self) -> Signer | None:
        """The signing key, made or read on first use (the engine's start stays fast)."""
        if self._signer is not None and not isinstance(self._signer, Signer):
            self._signer = self._signer()
        return self._signer

    def _headers_for(self, config: Any) -> tuple[tuple[str, str], ...]:
        given = dict(self.pending_headers)
        items = list(self.pending_headers)
        if "record" not in given:
            items.insert(0, ("record", RECORD_VERSION))
        defaults = record_headers(RecordFacts(config, date=self._clock()))
        items += [(k, v) for k, v in defaults if k not in given]
        return tuple(items)

    # ------------------------------------------------------------------ commands

    def _cmd_hello(self, args: list[str], rest: str) -> list[str]:
        if len(args) > 1:
            raise ProtocolError("usage", f"usage: {USAGE['hello']}")
        if args and args[0] != str(PROTOCOL_VERSION):
            raise ProtocolError(
                "version",
                f"protocol version {_clip(args[0])} is not spoken here: this engine speaks "
                f"version {PROTOCOL_VERSION}",
            )
        return [
            f"id name={ENGINE_NAME} version={__version__} protocol={PROTOCOL_VERSION}",
            "ok hello",
        ]

    def _cmd_isready(self, args: list[str], rest: str) -> list[str]:
        return ["readyok"]

    def _cmd_commands(self, args: list[str], rest: str) -> list[str]:
        return [f"command {usage}" for usage in USAGE.values()] + ["ok commands"]

    def _cmd_known(self, args: list[str], rest: str) -> list[str]:
        if len(args) != 1:
            raise ProtocolError("usage", f"usage: {USAGE['known']}")
        return [f"ok known {'yes' if args[0] in USAGE else 'no'}"]

    def close(self) -> None:
        """Close the record file; the session can still answer, but records nothing."""
        if self.writer is not None:
            self.writer.close()
            self.writer = None

    def _cmd_quit(self, args: list[str], rest: str) -> list[str]:
        self.done = True
        self.close()
        return ["ok quit"]

    def _cmd_newgame(self, args: list[str], rest: str) -> list[str]:
        pairs = split_pairs(args)
        config = config_from_pairs(pairs, defaults=True)
        if config.seed is None and config.deals is None:
            config = attrs.evolve(config, seed=self._seeds())
        if config.seed is not None and config.commit is None:
            config = commit_config(config, config.nonce or self._nonces())  # spec/TAMPER.md
        problem = commitment_problem(config)
        if problem is not None:
            raise ConfigError(problem)
        game_rules(config.game).validate(config)
        events = start(config)
        state = EMPTY
        for event in events:
            state = evolve(state, event)
        game = Game(state, EventLog(events), None, self._headers_for(config))
        return [*self._commit(game, events, fresh=True), "ok newgame"]

    def _cmd_bid(self, args: list[str], rest: str) -> list[str]:
        self._need_game()
        if len(args) != 2:
            raise ProtocolError("usage", f"usage: {USAGE['bid']}")
        command = Bid(self._seat(args[0]), self._seat(args[1], "bid"))
        return [*self._act(command), "ok bid"]

    def _cmd_play(self, args: list[str], rest: str) -> list[str]:
        rules = self._need_game()
        if len(args) not in (2, 3):
            raise ProtocolError("usage", f"usage: {USAGE['play']}")
        seat = self._seat(args[0])
        card = rules.parse_card(args[1])
        call = rules.parse_call(args[2]) if len(args) == 3 else None
        return [*self._act(Play(seat, card, call)), "ok play"]

    def _act(self, command: Command) -> list[str]:
        try:
            state, events = step(self.state, command)
        except IllegalCommand as exc:
            raise self._redact(exc, command.seat) from None
        game = Game(state, self.game.log.extend(events), None, self.game.headers)
        return self._commit(game, events, fresh=False)

    def _redact(self, exc: XactikaError, seat: int | None) -> XactikaError:
        """In a seat's view, every refused move of another seat gets one and the same error.

        Which check failed (not its turn, not in its hand, the wrong call, must follow)
        would tell whether a card is in a hidden hand: probing every card with a wrong
        call rebuilt the hand in 81 tries.
        """
        if self.seat is None or seat == self.seat:
            return exc
        return IllegalCommand(
            f"seat {seat} may not do that now (the reason is hidden in seat {self.seat}'s view)"
        )

    def _as_seen(self, check: LogCheck, event: Event) -> Event:
        """In a seat's view, judge an event where the rules owe one on what the seat sees.

        The owed event may hold hidden cards (the next deal, the other player's draw): an
        answer that depended on them, or a message that named them, would be an oracle.
        A derived event that matches the owed one as the seat sees it stands for it.
        """
        if self.seat is None or not check.pending or event.seq != check.state.seq + 1:
            return event
        expected = check.pending[0]
        seen = visible(expected, self.seat)
        if command_of(event) is None and visible(event, self.seat) == seen:
            return expected
        rules = self.state.rules
        said, owed = (format_event(visible(e, self.seat), rules).split(" ", 2)[2]
                      for e in (event, expected))
        raise InvalidEvent(f"{said} does not match the rules: expected {owed}")

    def _cmd_event(self, args: list[str], rest: str) -> list[str]:
        event = parse_event("event " + rest, self.rules)
        if isinstance(event, GameStarted):
            if event.seq != 1:
                raise InvalidEvent(f"game-started must be seq 1, not {event.seq}")
            check, state, new = advance(LogCheck(), EMPTY, event)
            game = Game(state, EventLog(new), check, self._headers_for(event.config))
            return [*self._commit(game, new, fresh=True), "ok event"]
        self._need_game()
        check = self.game.check or LogCheck(self.state)
        try:
            event = self._as_seen(check, event)
            check, state, new = advance(check, self.state, event)
        except InvalidEvent as exc:
            raise self._redact(exc, getattr(event, "seat", None)) from None
        game = Game(state, self.game.log.extend(new), check if check.pending else None,
                    self.game.headers)
        return [*self._commit(game, new, fresh=False), "ok event"]

    def _cmd_header(self, args: list[str], rest: str) -> list[str]:
        try:
            key, value = parse_header("header " + rest)
            check_header(key, value)
        except (RecordError, ValueError) as exc:
            raise ProtocolError("usage", str(exc)) from None
        size = len(f"header {key} {value}".encode("utf-8", "surrogatepass"))
        if size >= MAX_LINE:  # its line end makes it longer than a reader takes
            raise ProtocolError("limit", f"the header line would be {size} bytes: a record "
                                f"line holds at most {MAX_LINE - 1} and its line end")
        pending = (*self.pending_headers, (key, value))
        if len(pending) > MAX_HEADERS - _OWN_HEADERS or sum(
                len(k) + len(v) + _HEADER_LINE for k, v in pending) > MAX_HEADER_BYTES // 2:
            raise ProtocolError("limit", f"too many headers for the next game: at most "
                                f"{MAX_HEADERS - _OWN_HEADERS} lines and "
                                f"{MAX_HEADER_BYTES // 2} bytes")
        self.pending_headers = pending
        return ["ok header"]

    def _cmd_turn(self, args: list[str], rest: str) -> list[str]:
        return [self._turn_line(), "ok turn"]

    def _cmd_show(self, args: list[str], rest: str) -> list[str]:
        rules = self._need_game()
        s = self.state
        c = s.config
        head = (f"state game={c.game} mode={c.mode} players={c.players} rounds={c.rounds} "
                f"seq={s.seq} phase={s.phase} round={s.round} dealer={s.dealer}")
        if s.turned is not None:
            head += f" turned={s.turned}"
        out = [head]
        for seat in range(c.players):
            hand = s.hands[seat] if s.hands else ()
            shown = "?" if self.seat is not None and seat != self.seat else (
                ",".join(str(card) for card in hand) or "-")
            bid = s.bids[seat] if s.bids else None
            out.append(
                f"state seat={seat} cards={len(hand)} hand={shown} "
                f"bid={'-' if bid is None else bid} taken={s.taken[seat] if s.taken else 0} "
                f"total={s.totals[seat]}"
            )
        plays = ",".join(f"{seat}:{card}" for seat, card in s.trick) or "-"
        call = "-" if s.call is None else rules.format_call(s.call)
        trick = "-" if s.over else len(s.tricks) + 1  # no trick 9 of 8 after game-over
        out.append(f"state trick={trick} leader={s.leader} call={call} plays={plays}")
        return [*out, self._turn_line(), "ok show"]

    def _cmd_log(self, args: list[str], rest: str) -> list[str]:
        self._need_game()
        hidden = ("seed", "deal", "deals")
        headers = [(k, v) for k, v in self.game.headers
                   if self.seat is None or k not in hidden]
        events = self.game.log if self.seat is None else [
            visible(e, self.seat) for e in self.game.log]
        # the same text as the record file, hash chain included (spec/TAMPER.md)
        return [*format_record(headers, events).splitlines(), "ok log"]

    def _cmd_view(self, args: list[str], rest: str) -> list[str]:
        if len(args) != 1:
            raise ProtocolError("usage", f"usage: {USAGE['view']}")
        if self.view_locked and args[0] != str(self.seat):
            raise ProtocolError("locked", f"this engine shows seat {self.seat}'s view only "
                                f"(--seat {self.seat}): no other view")
        if args[0] == "all":
            self.seat = None
            return ["ok view"]
        seat = self._seat(args[0])
        players = self.state.config.players if self.state.phase != "new" else None
        if seat < 0 or (players is not None and seat >= players):
            raise ConfigError(f"no seat {seat}: seats are 0 to {(players or 1) - 1}")
        self.seat = seat
        return ["ok view"]

    def _cmd_sig(self, args: list[str], rest: str) -> list[str]:
        """A record's closing signature line, so a signed record is engine input as is.

        The engine does not judge it: whom to trust is the auditor's decision.
        """
        if self.state.phase == "new":
            raise WrongPhase("sig closes a record: it follows the record's events")
        return ["ok sig"]

    def _cmd_result(self, args: list[str], rest: str) -> list[str]:
        """A finished record's result line, so a record is engine input as is.

        It says in words what game-over says; xactika audit checks that it does.
        """
        if not self.state.over:
            raise WrongPhase("result follows game-over: it says who won")
        return ["ok result"]

    def _cmd_record(self, args: list[str], rest: str) -> list[str]:
        if not rest:
            raise ProtocolError("usage", f"usage: {USAGE['record']}")
        if rest == "off":
            if self.writer is not None:
                self.writer.close()
                self.writer = None
            self.record_path = None
            return ["ok record"]
        path = rest
        try:
            with self._folder().place(path):  # refused now, not at the next game
                pass
        except PathRefused as exc:
            raise ProtocolError("path", f"record {escape(path, 80)!r}: {exc.strerror}") from None
        except OSError as exc:
            raise XactikaError(
                f"cannot write the record {escape(path, 80)!r}: {exc.strerror}") from None
        was = self.record_confined
        self.record_confined = True
        if self.state.phase != "new":
            try:
                writer = self._start_writer(path, self.game)  # raises before any change
            except XactikaError:
                self.record_confined = was
                raise
            if self.writer is not None:
                self.writer.close()
            self.writer = writer
            self.games_recorded = 1
        else:
            self.games_recorded = 0
        self.record_path = path
        return ["ok record"]

    def _cmd_load(self, args: list[str], rest: str) -> list[str]:
        if not rest:
            raise ProtocolError("usage", f"usage: {USAGE['load']}")
        if self.view_locked:
            raise ProtocolError("locked", f"load is refused in seat {self.seat}'s view (--seat "
                                f"{self.seat}): rolling a game back would let another seat's "
                                "moves be tried again and again")
        headers: list[tuple[str, str]] = []
        check = LogCheck()
        log: list[Event] = []
        state = EMPTY
        shown = escape(rest, 80)
        from xactika.protocol.records.jsonl import record_lines  # text or JSONL; cattrs loads late

        try:
            with self._folder().open_read(rest) as fh:
                for lineno, kind, value in iter_record_lines(record_lines(bounded_lines(fh))):
                    if kind == "header":
                        headers.append(value)
                        continue
                    if kind in ("sig", "result"):
                        continue  # xactika audit checks signatures; a copy is re-signed
                    try:
                        check, state, new = advance(check, state, value)
                    except XactikaError as exc:
                        raise RecordError(f"line {lineno}: {exc}") from None
                    log += new
        except PathRefused as exc:
            raise ProtocolError("path", f"load {shown!r}: {exc.strerror}") from None
        except OSError as exc:
            raise RecordError(f"cannot read {shown!r}: {exc.strerror}") from None
        except RecordError as exc:
            raise RecordError(f"{shown}: {exc}") from None
        if not log:
            raise RecordError(f"{shown}: no events: a record needs at least game-started")
        game = Game(state, EventLog(log), check, tuple(headers))
        return [*self._commit(game, log, fresh=True), "ok load"]
