"""A game at the table, terminal-free: player commands in, text out.

``xactika play`` drives one :class:`Session`: it reads a line, calls :meth:`Session.handle`
and prints the reply. Bots act inside the session until a human must decide, so a test
can play a whole game by calling ``handle`` alone. Everything a human is shown comes
from their own :func:`view` or from public events, never from the omniscient state.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from xactika.core.bots.agents import Agent
from xactika.core.engine.errors import IllegalCommand, ParseError, XactikaError
from xactika.core.engine.table import (
    Bid,
    BidMade,
    Command,
    Event,
    GameOver,
    Led,
    Legal,
    Play,
    Played,
    RoundScored,
    State,
    TrickGame,
    TrickWon,
    legal_actions,
    replay,
    step,
)
from xactika.core.engine.views import SeatView, view, visible
from xactika.core.games.dix import (
    SUIT_NAMES,
    Drew,
    cards_in_stock,
    round_points,
    suit_of,
    ten_tricks,
    trump_suit,
)
from xactika.core.games.xactika import SHAPE_TOKENS, SHAPES, Call
from xactika.frontends.cli.invocation import xactika_command
from xactika.frontends.repl import render, teach
from xactika.frontends.repl.render import Style
from xactika.frontends.repl.suggest import COMMAND_HELP, Context
from xactika.protocol.records.textform import utc_date
from xactika.protocol.trust.signing import Signer

HUMAN = "human"
BOT = "bot"
CMD = "cmd"

MODE_NAMES = {"win": "Play to Win", "lose": "Play to Lose", "bid": "Play to Bid"}


@attrs.frozen
class SeatSpec:
    """Who sits at a seat: a human (with a name), a built-in bot, or a bot command."""

    kind: str
    name: str = ""
    argv: tuple[str, ...] = ()

    def text(self) -> str:
        """The spec as ``--seat`` takes it back."""
        if self.kind == HUMAN:
            return f"human:{self.name}" if self.name else "human"
        if self.kind == BOT:
            return f"bot:{self.name}"
        return "cmd:" + shlex.join(self.argv)


def parse_seat_spec(text: str, bot_names: Sequence[str]) -> SeatSpec:
    """``human``, ``human:NAME``, ``bot:NAME`` (or a bare bot name), ``cmd:COMMAND``."""
    kind, colon, rest = text.strip().partition(":")
    kind = kind.strip().lower()
    rest = rest.strip()
    if kind in ("human", "you", "me") and (not colon or rest):
        name = rest if colon else ""
        if any(ch.isspace() or ch == "," for ch in name):
            raise ParseError(f"bad human name {name!r}: no spaces or commas")
        return SeatSpec(HUMAN, name)
    if kind == "cmd" and colon:
        try:
            argv = tuple(shlex.split(rest))
        except ValueError as exc:
            raise ParseError(f"bad bot command {rest!r}: {exc}") from None
        if not argv:
            raise ParseError("cmd: needs a command, e.g. cmd:'python3 examples/random_bot.py'")
        return SeatSpec(CMD, argv[0].rsplit("/", 1)[-1], argv)
    name = rest if kind == "bot" and colon else (kind if not colon else "")
    if name in bot_names:
        return SeatSpec(BOT, name)
    raise ParseError(
        f"bad seat {text!r}: expected human, human:NAME, cmd:COMMAND or bot:NAME "
        f"with NAME one of {', '.join(bot_names)}"
    )


@attrs.frozen
class Reply:
    """What to print, and whether the turn moved on or the player asked to leave."""

    text: str = ""
    moved: bool = False
    quit: bool = False


def call_aliases(call: Any, rules: TrickGame) -> set[str]:
    """Every way a player may type ``call``: ``2st``, ``2stars``, or the shape alone."""
    names = {rules.format_call(call).lower()}
    if isinstance(call, Call):
        shape = SHAPES[call.shape]
        names |= {SHAPE_TOKENS[call.shape], shape, shape[:-1],
                  f"{call.count}{shape}", f"{call.count}{shape[:-1]}"}
    return names


def last_trick(events: Sequence[Event]) -> tuple[Any, list[tuple[int, Any]], int, int] | None:
    """(call, plays, winner, trick number) of the last finished trick in the log."""
    for i in range(len(events) - 1, -1, -1):
        event = events[i]
        if isinstance(event, TrickWon):
            plays: list[tuple[int, Any]] = []
            for j in range(i - 1, -1, -1):
                e = events[j]
                if isinstance(e, Played):
                    plays.append((e.seat, e.card))
                elif isinstance(e, Led):
                    plays.append((e.seat, e.card))
                    return e.call, plays[::-1], event.seat, event.trick
            return None
    return None


AgentFactory = Callable[[int], Agent]


class Session:
    """One game: the event log, the seats, and the bots that play the seats not human.

    ``make_agent(seat)`` builds a fresh bot for a bot seat (used again after ``undo``,
    when bots are rebuilt and shown the shortened log); ``make_hint(seat)`` builds the
    advisor for a human seat. External bots cannot be rewound, so games with them (and
    hot-seat games, where undo would show one human another's decisions) are not
    practice games.
    """

    def __init__(
        self,
        events: Sequence[Event],
        seats: Sequence[SeatSpec],
        make_agent: AgentFactory,
        *,
        make_hint: Callable[[int], Agent | None] | None = None,
        style: Style = render.PLAIN,
        practice: bool | None = None,
        names: Sequence[str] | None = None,
        show_seed: bool = True,
        width: int = 80,
        tutorial: bool = False,
        started: str | None = None,
    ) -> None:
        self.events: list[Event] = list(events)
        # the record's date is when the game started, not when it was saved
        self.started = started or utc_date()
        self.state: State = replay(self.events)
        self.config = self.state.config
        self.rules: TrickGame = self.state.rules
        self.seats = list(seats)
        if len(self.seats) != self.config.players:
            raise ValueError(f"{len(self.seats)} seats for {self.config.players} players")
        self.humans = [s for s, spec in enumerate(self.seats) if spec.kind == HUMAN]
        self.hot_seat = len(self.humans) > 1
        can_undo = not self.hot_seat and all(s.kind != CMD for s in self.seats)
        self.practice = can_undo if practice is None else (practice and can_undo)
        self.style = style
        self.width = width  # the terminal's columns: every text is laid out to fit them
        self.tutorial = tutorial  # round 1 is coached: what to do now, and why
        # The seed fixes every hand: told up front only to whoever chose it, else at the end.
        self.show_seed = show_seed
        self._make_agent = make_agent
        self._make_hint = make_hint
        self.names = list(names) if names is not None else self._default_names()
        self.agents: dict[int, Agent] = {}
        self.hints: dict[int, Agent | None] = {}
        self.notes: list[str] = []  # bot trouble, told once
        self._build_agents()

    # ----------------------------------------------------------------- set-up

    def _default_names(self) -> list[str]:
        names = []
        for spec in self.seats:
            if spec.kind == HUMAN:
                names.append(spec.name or ("human" if self.hot_seat else "you"))
            else:
                names.append(spec.name)
        return names

    def _build_agents(self) -> None:
        self.agents = {
            s: self._make_agent(s) for s, spec in enumerate(self.seats) if spec.kind != HUMAN
        }
        self.hints = {s: (self._make_hint(s) if self._make_hint else None) for s in self.humans}
        self.faults = self._tell_all(self.events)  # shown by the next advance()

    def _tell_all(self, events: Sequence[Event]) -> list[str]:
        """Tell every bot ``events``; a bot program that faults is replaced, said once."""
        faults = []
        for seat, agent in [*self.agents.items(), *self.hints.items()]:
            if agent is None:
                continue
            try:
                self._tell(seat, agent, events)
            except XactikaError as exc:  # a BotError: it closed its input, crashed...
                if self.agents.get(seat) is agent:
                    faults.append(self._replace_bot(seat, exc))
                else:
                    self.hints[seat] = None
        return faults

    @staticmethod
    def _tell(seat: int, agent: Agent, events: Sequence[Event]) -> None:
        observe = getattr(agent, "observe", None)
        if observe is not None:
            for event in events:
                observe(seat, visible(event, seat))

    def close(self) -> None:
        """Stop bot processes."""
        for seat in list(self.agents):
            self.close_one(seat)

    # ----------------------------------------------------------------- queries

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def legal(self) -> Legal:
        return legal_actions(self.state)

    @property
    def human_to_act(self) -> int | None:
        seat = self.legal.seat
        return seat if seat is not None and seat in self.humans else None

    def label(self, seat: int) -> str:
        return render.seat_label(seat, self.names)

    def shown_hand(self, seat: int) -> list[Any]:
        return sorted(self.state.hands[seat], key=self.rules.sort_key)

    def seat_view(self, seat: int) -> SeatView:
        return view(self.state, seat)

    def scored(self) -> list[RoundScored]:
        return [e for e in self.events if isinstance(e, RoundScored)]

    # ----------------------------------------------------------------- bots

    def advance(self) -> list[str]:
        """Let bots act until a human must decide or the game ends; narrate it."""
        lines, self.faults = self.faults, []
        while True:
            legal = self.legal
            seat = legal.seat
            if seat is None or seat in self.humans:
                return lines
            agent = self.agents[seat]
            try:
                command = agent.choose(view(self.state, seat), legal)
                if command not in legal:
                    raise IllegalCommand(f"the bot chose an illegal move: {command}")
            except XactikaError as exc:
                lines.append(self._replace_bot(seat, exc))
                continue
            lines += self._apply(command)

    def _replace_bot(self, seat: int, exc: Exception) -> str:
        """A failed external bot gives its seat to a built-in one so the game goes on."""
        old = self.label(seat)
        spec = SeatSpec(BOT, "random")
        self.seats[seat] = spec
        self.names[seat] = "random"
        self.close_one(seat)
        from xactika.core.bots.agents import make_agent

        agent = make_agent("random", seat)
        self.agents[seat] = agent
        self._tell(seat, agent, self.events)
        self.practice = False
        reason = getattr(exc, "reason", None) or getattr(exc, "code", "error")
        return f"{old} faulted ({reason}: {exc}); a random bot takes over the seat"

    def close_one(self, seat: int) -> None:
        """Quit a bot program (a ProcessAgent's player); built-in bots need nothing."""
        player = getattr(self.agents.get(seat), "player", None)
        quit_ = getattr(player, "quit", None)
        if callable(quit_):
            try:
                quit_()
            except Exception:  # a dead bot may fail to quit
                pass

    def _apply(self, command: Command) -> list[str]:
        state, new = step(self.state, command)
        self.events, self.state = [*self.events, *new], state
        lines = self._tell_all(new)
        first = len(self.events) - len(new)
        for i, event in enumerate(new, first):
            if isinstance(event, Drew) and (event.seat not in self.humans or self.hot_seat):
                # a bot's draw is face down; in a hot-seat game the next person reads it
                event = visible(event, -1)
            text = render.narrate(event, self.names, self.config.game, self.style,
                                  size=self.width)
            if isinstance(event, RoundScored) and (self.rules.has_bidding(self.config)
                                                   or self.config.game == "dix"):
                text = None  # the round's summary and the score table say it all
            if text is not None:
                lines.append(text)
            if isinstance(event, TrickWon):
                tricks, turned = teach.round_tricks(self.events, i)
                last = tricks[-1]
                lines.append(self.style.dim("  " + teach.why_won(
                    self.config.game, last.plays, last.call, last.winner, turned, self.names)))
            if isinstance(event, RoundScored):
                tricks, _ = teach.round_tricks(self.events, i)
                summary = teach.round_end(self.config, event, tricks, self.names)
                if summary:
                    lines.append(summary)
                if self.tutorial and event.round == 1:
                    lines.append(self.style.bold(teach.TUTORIAL_DONE))
                lines.append(render.score_table(self.scored_until(i), self.names, self.style,
                                                self.width))
            if isinstance(event, GameOver):
                lines.append(self.standings())
        return [render.fit(line, self.width) for line in lines]

    def scored_until(self, index: int) -> list[RoundScored]:
        return [e for e in self.events[: index + 1] if isinstance(e, RoundScored)]

    # ----------------------------------------------------------------- display

    def intro(self) -> str:
        c = self.config
        mode = MODE_NAMES.get(c.mode, c.mode) if c.game == "xactika" else c.mode
        seed = f", seed {c.seed}" if c.seed is not None and self.show_seed else ""
        lines = [
            self.style.bold(f"{c.game.capitalize()}: {mode}, {c.players} players, "
                            f"{c.rounds} round{'s' if c.rounds != 1 else ''}{seed}"),
            "seats: " + self._seats_text(),
            (f"{mode}: " if c.game == "xactika" else "") + teach.mode_text(c),
            "type 'help' for commands, 'rules' to learn the game; Tab completes"
            + ("; 'undo' takes back a move" if self.practice else ""),
        ]
        if self.tutorial:
            intro = teach.TUTORIAL_INTRO
            if c.rounds == 1:  # nothing comes after the guided round
                intro = intro.replace(" After round 1 the game goes on as a normal game.", "")
            lines.append(self.style.bold(intro))
            if c.game in teach.TUTORIAL_CARDS:
                lines.append(self.style.bold(teach.TUTORIAL_CARDS[c.game]))
        return render.fit("\n".join(lines), self.width)

    def _seats_text(self) -> str:
        """``0 you, 1-6 heuristic (bot)``: a run of seats alike is written once."""
        def kind(s: int) -> str:
            spec = self.seats[s]
            return f"{self.names[s]}" + ("" if spec.kind == HUMAN else f" ({spec.kind})")

        parts: list[str] = []
        s = 0
        while s < len(self.seats):
            end = s
            while (end + 1 < len(self.seats) and kind(end + 1) == kind(s)
                   and self.seats[s].kind != HUMAN):
                end += 1
            parts.append(f"{s}{'' if end == s else f'-{end}'} {kind(s)}")
            s = end + 1
        return ", ".join(parts)

    def standings(self) -> str:
        totals = self.state.totals
        over = [e for e in self.events if isinstance(e, GameOver)]
        # the game's own winners: Dix breaks a tie in totals, so they are not just the best
        winners = over[-1].winners if over else self.rules.winners(self.config, totals)
        text = render.standings(
            totals, winners, self.names, self.style,
            low_wins=self.config.game == "xactika" and self.config.mode == "lose",
        )
        if self.config.seed is not None:
            # the command on a line of its own: a 128-bit seed must not wrap inside it
            text += ("\nthe deals came from a seed; this plays them again:\n"
                     f"  --seed {self.config.seed}")
        return text

    def table(self, seat: int) -> str:
        """What ``seat`` sees on its turn: round, bids, the trick, its hand, what to do."""
        v = view(self.state, seat)
        st = self.style
        game = self.config.game
        draw = render.card_renderer(game)
        size = self.width
        lines = [render.rule(st, f"round {v.round} of {self.config.rounds}, "
                                 f"{self.label(v.dealer)} dealt", min(60, size))]
        if v.turned is not None:
            lines.append(render.turned_up(v.turned, st))
        if self.rules.has_bidding(self.config):
            lines.append(render.bids(v.bids, self.names,
                                     v.taken if v.phase == "play" else (), size))
        elif game == "dix":
            lines.append(render.tricks_taken(
                v.taken, self.names, size, points=round_points(v.tricks, self.config.players),
                tens=ten_tricks(v.tricks, self.config.players)))
            if self.config.mode == "draw":
                left = cards_in_stock(v)
                lines.append(f"stock: {left} card{'s' if left != 1 else ''}" + (
                    "; after each trick its winner draws first" if left else
                    "; no more draws"))
        else:
            lines.append(render.tricks_taken(v.taken, self.names, size))
        if v.phase == "play":
            number = len(v.tricks) + 1
            if not v.trick and v.tricks:
                t = v.tricks[-1]
                lines.append(render.trick(t.plays, t.call, self.names, game, st,
                                          winning=t.winner, number=len(v.tricks), size=size,
                                          won=True))
            winning = (self.rules.trick_winner(self.state, v.trick, v.call)
                       if v.trick else None)
            lines.append(render.trick(v.trick, v.call, self.names, game, st,
                                      winning=winning, number=number, size=size))
        legal = self.legal
        order = self.shown_hand(seat)
        marks = legal.cards if legal.seat == seat and legal.kind == "play" else None
        who = "your" if self.names[seat] == "you" else f"{self.label(seat)}'s"
        lines.append(st.bold(f"{who} hand") + st.dim(f"  ({draw.columns})"))
        lines.append(render.hand(order, game, st, legal=marks))
        if legal.seat == seat:
            lines.append(self.what_now(seat))
        return render.fit("\n".join(lines), size)

    def what_now(self, seat: int) -> str:
        """The line before the prompt: what may be played; in the tutorial, also why."""
        text = self._what_now(seat)
        if not (self.tutorial and self.state.round == 1):
            return text
        legal = self.legal
        found = self.hint(seat)
        suggestion = f"'{self.command_text(seat, found[0])}'" if found else ""
        led, trump = self._led_and_trump()
        call = self.state.call
        tip = teach.coach(self.config.game, legal.kind, restricted=self._can_follow(seat),
                          call_words=getattr(call, "words", ""), led_suit=led, trump=trump,
                          suggestion=suggestion)
        return self.style.bold(tip) + "\n" + text

    def _led_and_trump(self) -> tuple[str, str | None]:
        """Dix: the suit led (a name) and trumps (a name, or None for no trumps)."""
        if self.config.game != "dix":
            return "", None
        led = suit_of(self.state.trick[0][1], self.state.turned) if self.state.trick else ""
        trump = trump_suit(self.state.turned)
        return SUIT_NAMES.get(led, led), (SUIT_NAMES[trump] if trump is not None else None)

    def _can_follow(self, seat: int) -> bool:
        """Whether ``seat``, following, holds a card of the call (Xactika) or suit (Dix)."""
        if self.legal.kind != "play" or not self.state.trick:
            return False
        if self.config.game == "dix":
            led = suit_of(self.state.trick[0][1], self.state.turned)
            return any(suit_of(c, self.state.turned) == led for c in self.state.hands[seat])
        call = self.state.call
        return isinstance(call, Call) and any(c.shows(call) for c in self.state.hands[seat])

    def _what_now(self, seat: int) -> str:
        legal = self.legal
        if legal.kind == "bid":
            return (f"your bid (legal: {' '.join(map(str, legal.bids))}): "
                    f"e.g. 'bid {legal.bids[0]}' or just '{legal.bids[0]}'")
        order = self.shown_hand(seat)
        if legal.kind == "lead":
            first = order[0]
            calls = " ".join(self.rules.format_call(c) for c in legal.calls(first))
            extra = (f", with a call: e.g. 'play 1 {self.rules.format_call(legal.calls(first)[0])}'"
                     f" ({first} calls {calls}; the shape alone is enough)"
                     if legal.calls(first) != (None,) else ", e.g. 'play 1' or just '1'")
            return f"your lead: any card{extra}"
        positions = render.legal_summary(legal.cards, order)
        if self._can_follow(seat):
            if len(legal.cards) == len(order):
                return "you must follow, and every card you hold does: play any of them"
            some = "position" if len(legal.cards) == 1 else "one of positions"
            return f"you must follow: play {some} {positions} (marked)"
        if self.config.game == "dix":
            led, trump = self._led_and_trump()
            then = (f"a trump ({trump}) wins the trick, anything else loses it"
                    if trump is not None else "it cannot win the trick")
            return f"you have no {led}: play any card; {then}"
        return "you cannot follow: play any card (it cannot win the trick)" if (
            self.state.call is not None) else "your play: any card"

    def prompt(self, seat: int | None = None) -> str:
        seat = self.human_to_act if seat is None else seat
        if seat is None:
            return "> "
        kind = self.legal.kind
        who = "" if self.names[seat] == "you" else f"{self.names[seat]} "
        coached = "tutorial " if self.tutorial and self.state.round == 1 else ""
        return f"{coached}{who}{kind}> "

    def legal_text(self, seat: int) -> str:
        legal = self.legal
        if legal.seat != seat:
            return ""
        if legal.kind == "bid":
            return "legal bids: " + " ".join(map(str, legal.bids))
        order = self.shown_hand(seat)
        cards = ", ".join(f"{c} (position {order.index(c) + 1})" for c in legal.cards)
        if legal.kind == "lead":
            if self.legal.calls(self.shown_hand(seat)[0]) == (None,):
                return "you lead: any card, e.g. " + self._example_lead(seat)
            return "you lead: any card with one of its calls, e.g. " + self._example_lead(seat)
        return "legal cards: " + cards

    def _example_lead(self, seat: int) -> str:
        card = self.shown_hand(seat)[0]
        call = self.legal.calls(card)[0]
        return f"'play 1 {self.rules.format_call(call)}'" if call is not None else "'play 1'"

    def context(self) -> Context:
        """The completion context for the human to act (empty when none is)."""
        seat = self.human_to_act
        commands = tuple(c for c in self.commands() if c != "undo" or self.practice)
        if seat is None:
            return Context(commands=commands, topics=tuple(teach.topics(self.config)))
        legal = self.legal
        draw = render.card_renderer(self.config.game)
        order = self.shown_hand(seat)
        meta = {str(c): render.strip_ansi(draw.card_short(c, render.PLAIN)).split(" ", 1)[-1]
                for c in order}
        calls: dict[str, tuple[tuple[str, str], ...]] = {}
        if legal.kind == "lead":
            for c in legal.cards:
                options = legal.calls(c)
                if options != (None,):
                    calls[str(c)] = tuple(
                        (self.rules.format_call(k), draw.call_words(k)) for k in options
                    )
        return Context(
            kind=legal.kind,
            bids=legal.bids,
            hand=tuple(str(c) for c in order),
            legal=tuple(str(c) for c in order if c in set(legal.cards)),
            calls=calls,
            meta=meta,
            commands=commands,
            topics=tuple(teach.topics(self.config)),
        )

    # ----------------------------------------------------------------- commands

    def handle(self, line: str) -> Reply:
        """One line from the human to act. Bad input changes nothing and says why.

        Every reply is laid out to the terminal's width (``self.width``).
        """
        reply = self._handle(line)
        return attrs.evolve(reply, text=render.fit(reply.text, self.width))

    def _handle(self, line: str) -> Reply:
        seat = self.human_to_act
        words = line.split()
        if not words:
            return Reply(self.table(seat) if seat is not None else "")
        word = words[0].lower()
        simple: Mapping[str, Callable[[], str]] = {
            "help": self.help_text, "?": self.help_text,
            "scores": self.scores_text, "score": self.scores_text,
            "last": self.last_text,
            "table": lambda: self.table(seat) if seat is not None else self.scores_text(),
            "look": lambda: self.table(seat) if seat is not None else self.scores_text(),
        }
        if word in simple:
            return Reply(simple[word]())
        if word == "rules":
            return Reply(self._symbols(teach.rules_text(self.config, " ".join(words[1:]))))
        if word in ("quit", "exit", "q"):
            return Reply(quit=True)
        if word == "save":
            return Reply(self.save(line.strip()[4:].strip()))
        if seat is None:
            if word == "undo" and len(self.humans) == 1:  # take back the game's last move
                return self.undo(self.humans[0])
            return Reply("the game is over: 'save FILE' keeps it, 'quit' leaves")
        if word == "stats":
            return Reply(self.stats_text(seat))
        if word == "hint":
            return Reply(self.hint_text(seat))
        if word == "undo":
            return self.undo(seat)
        try:
            command = self.parse_move(seat, words)
        except XactikaError as exc:
            return Reply(self._refuse(seat, str(exc)))
        try:
            lines = self._apply(command)
        except IllegalCommand as exc:
            return Reply(self._refuse(seat, str(exc)))
        lines += self.advance()
        return Reply("\n".join(lines), moved=True)

    def _refuse(self, seat: int, why: str) -> str:
        legal = self.legal_text(seat)
        told = legal.split(":", 1)[0].replace(":", "")  # "legal bids" already said?
        repeated = not legal or legal in why or (told == "legal bids" and told in why)
        return render.fit(why + ("" if repeated else f"\n{legal}"), self.width)

    def parse_move(self, seat: int, words: list[str]) -> Command:
        """``bid N``, ``play CARD [CALL]``, or bare ``N`` / ``CARD [CALL]``."""
        legal = self.legal
        word = words[0].lower()
        if word == "bid" and not self.rules.has_bidding(self.config):
            what = (self.config.game.capitalize() if self.config.game != "xactika"
                    else MODE_NAMES.get(self.config.mode, ""))
            raise ParseError(f"there is no bidding in {what}: play a card ('help' says how)")
        if word == "bid":
            if len(words) != 2:
                raise ParseError("bid takes one number: bid 2")
            return Bid(seat, self._number(words[1]))
        if word == "play":
            if len(words) not in (2, 3):
                raise ParseError("play takes a card and, when leading, a call: play 3 2st"
                                 if self.config.game == "xactika" else
                                 "play takes one card: play 3 (its position) or play QH")
            return self._play(seat, words[1], words[2] if len(words) == 3 else None)
        if legal.kind == "bid" and words[0].isdigit() and len(words) == 1:
            return Bid(seat, self._number(words[0]))
        if len(words) <= 2 and (words[0][:1].isdigit() or self._is_card(words[0])):
            return self._play(seat, words[0], words[1] if len(words) == 2 else None)
        raise ParseError(
            f"unknown command {words[0]!r}: type 'help' for the commands"
        )

    def _is_card(self, text: str) -> bool:
        try:
            self.rules.parse_card(text.upper() if self.config.game != "xactika" else text)
        except (XactikaError, ValueError):
            return False
        return True

    @staticmethod
    def _number(text: str) -> int:
        if not text.isdigit():
            raise ParseError(f"bad bid {text!r}: expected a whole number of tricks")
        return int(text)

    def _card(self, seat: int, token: str) -> Any:
        order = self.shown_hand(seat)
        if token.isdigit() and len(token) <= 2:
            i = int(token)
            if not 1 <= i <= len(order):
                raise ParseError(
                    f"no card at position {i}: your hand has positions 1 to {len(order)}"
                )
            return order[i - 1]
        try:
            card = self.rules.parse_card(token if self.config.game == "xactika"
                                         else token.upper())
        except (XactikaError, ValueError) as exc:
            raise ParseError(f"{exc} (or a position 1 to {len(order)} in your hand)") from None
        if card not in order:
            raise ParseError(f"{card} is not in your hand")
        return card

    def _play(self, seat: int, token: str, call_text: str | None) -> Play:
        legal = self.legal
        if legal.kind == "bid":
            raise ParseError("it is time to bid, not to play a card")
        card = self._card(seat, token)
        if legal.kind != "lead":
            if call_text is not None:
                raise ParseError("only the leader makes a call: type just the card")
            return Play(seat, card)
        options = self.rules.calls_for(card)
        if options == (None,):
            if call_text is not None:
                raise ParseError(f"{self.config.game.capitalize()} has no calls: type just "
                                 "the card")
            return Play(seat, card)
        texts = " ".join(self.rules.format_call(c) for c in options)
        if call_text is None:
            raise ParseError(
                f"leading {card} needs a call: one of {texts} (or just the shape, e.g. "
                f"'play {token} {SHAPE_TOKENS[0] if isinstance(options[0], Call) else ''}')"
                .replace(" )", ")")
            )
        low = call_text.lower()
        for option in options:
            if low in call_aliases(option, self.rules):
                return Play(seat, card, option)
        raise ParseError(f"{card} cannot call {call_text!r}: its calls are {texts}")

    # ----------------------------------------------------------------- informational

    def commands(self) -> dict[str, str]:
        """This game's commands and what each does (no bids or stats card in Dix)."""
        found = dict(COMMAND_HELP)
        if not self.rules.has_bidding(self.config):
            del found["bid"]
        if self.config.game != "xactika":
            found.pop("stats", None)
            found["play"] = "play a card: play 3 (its position) or play QH (its text)"
        if not self.practice:
            found["undo"] += " (not in this game)"
        return found

    def help_text(self) -> str:
        lines = ["commands:"]
        for name, text in self.commands().items():
            lines.append(f"  {name:<7} {text}")
        if self.config.game == "xactika":
            lines += [
                ("a bare number is a bid while bidding, else a position in your hand: "
                 if self.rules.has_bidding(self.config) else "a bare number is a position "
                 "in your hand: ") + "'3' plays your third card;",
                "a bare card text plays it: '1323'. A lead needs a call: '3 2st', '3 stars' "
                "or '3 st' (the card fixes the count).",
                "cards: balls ● (o), cubes ■ (#), cones ▲ (^), stars ★ (*); each drawn as "
                "many times as it counts, then the value.",
            ]
        else:
            lines += [
                "a bare number is a position in your hand: '3' plays your third card; a "
                "bare card text plays it: 'QH', '10D' or 'JK' (the joker). Dix has no calls "
                "and no bids.",
            ]
        lines += [
            "'rules' explains the game; 'rules TOPIC' one part of it.",
            "Tab completes commands, legal cards" + (" and calls" if self.config.game ==
                                                     "xactika" else "")
            + ". Ctrl-C clears the line; Ctrl-D or 'quit' leaves.",
        ]
        return self._symbols("\n".join(lines))

    def _symbols(self, text: str) -> str:
        """``balls ● (o)`` reads ``balls o`` in --ascii: one form, no Unicode."""
        if not self.style.ascii:
            return text
        for symbol, letter in zip(render.SYMBOLS, render.ASCII_SYMBOLS, strict=True):
            text = text.replace(f"{symbol} ({letter})", letter)
        return text

    def scores_text(self) -> str:
        size = self.width
        lines = [render.score_table(self.scored(), self.names, self.style, size)]
        if not self.over and self.state.phase in ("bid", "play"):
            if self.rules.has_bidding(self.config):
                lines.append(f"round {self.state.round} so far:\n"
                             + render.bids(self.state.bids, self.names, self.state.taken, size))
            elif self.config.game == "dix":
                players = self.config.players
                lines.append(f"round {self.state.round} so far:\n" + render.tricks_taken(
                    self.state.taken, self.names, size,
                    points=round_points(self.state.tricks, players),
                    tens=ten_tricks(self.state.tricks, players)))
            else:
                lines.append(f"round {self.state.round} so far:\n"
                             + render.tricks_taken(self.state.taken, self.names, size))
        if self.over:
            lines.append(self.standings())
        return "\n".join(lines)

    def last_text(self) -> str:
        found = last_trick(self.events)
        if found is None:
            return "no trick has been finished yet"
        call, plays, winner, number = found
        index = max(i for i, e in enumerate(self.events) if isinstance(e, TrickWon))
        _, turned = teach.round_tricks(self.events, index)
        return render.trick(plays, call, self.names, self.config.game, self.style,
                            winning=winner, number=number, size=self.width, won=True
                            ) + "\n" + teach.why_won(self.config.game, plays, call, winner,
                                                     turned, self.names)

    def stats_text(self, seat: int) -> str:
        v = view(self.state, seat)
        seen = [c for t in v.tricks for _, c in t.plays] + [c for _, c in v.trick]
        return render.card_renderer(self.config.game).stats(v.hand, seen, self.style,
                                                             self.width)

    def hint(self, seat: int) -> tuple[Command, str] | None:
        """The hint bot's move for ``seat`` and its one-line reason (may be empty)."""
        agent = self.hints.get(seat)
        if agent is None or self.legal.seat != seat:
            return None
        v = view(self.state, seat)
        explain = getattr(agent, "explain", None)
        if explain is not None:
            command, reason = explain(v, self.legal)
            return command, str(reason)
        return agent.choose(v, self.legal), ""

    def hint_text(self, seat: int) -> str:
        found = self.hint(seat)
        if found is None:
            return "no hint bot for this game"
        command, reason = found
        return "hint: " + self.command_text(seat, command) + (f"  ({reason})" if reason else "")

    def command_text(self, seat: int, command: Command) -> str:
        """The command as the player would type it."""
        if isinstance(command, Bid):
            return f"bid {command.bid}"
        call = "" if command.call is None else " " + self.rules.format_call(command.call)
        return f"play {command.card}{call}"

    def undo(self, seat: int) -> Reply:
        if not self.practice:
            why = ("hot-seat games" if self.hot_seat else
                   "games with external bots" if any(s.kind == CMD for s in self.seats) else
                   "this game (--no-undo)")
            return Reply(f"undo is for practice games only, not {why}")
        for i in range(len(self.events) - 1, -1, -1):
            event = self.events[i]
            if isinstance(event, BidMade | Led | Played) and event.seat == seat:
                break
        else:
            return Reply("nothing to undo: you have not decided anything yet")
        taken = self.command_text(seat, Bid(seat, event.bid) if isinstance(event, BidMade)
                                  else Play(seat, event.card, getattr(event, "call", None)))
        self.events = self.events[:i]
        self.state = replay(self.events)
        self._build_agents()
        return Reply(f"undone: {taken}; it is your turn again", moved=True)

    # ----------------------------------------------------------------- records

    def headers(self) -> list[tuple[str, str]]:
        from xactika.protocol.records.writing import standard_headers

        extra = [(f"seat.{s}", spec.text()) for s, spec in enumerate(self.seats)]
        return standard_headers(self.config, self.names, date=self.started,
                                extra=[*extra, ("practice", "yes" if self.practice else "no")])

    key_file: str | None = None  # --key: the private key that signs saves (None: the user's)

    def record_text(self, signer: Signer | None = None) -> str:
        from xactika.protocol.records.textform import format_record

        return format_record(self.headers(), self.events, signer=signer)

    def save(self, path: str) -> str:
        if not path:
            return "save needs a file name: save FILE"
        import os

        from xactika.protocol.records.writing import write_record_file
        from xactika.protocol.trust.signing import KeyFileError, signer_for

        target = os.path.expanduser(path)
        try:
            text = self.record_text(signer_for(self.key_file))  # spec/TAMPER.md section 6
        except KeyFileError as exc:
            return f"cannot save: the signing key: {exc}"
        try:
            write_record_file(target, text)
        except OSError as exc:
            return f"cannot save to {path!r}: {exc.strerror or exc}"
        # the command on a line of its own, so that it is pasted whole
        return (f"saved {len(self.events)} events to {path} (it holds every hand); "
                f"to continue:\n  {xactika_command()} play --load {shlex.quote(path)}")


def seats_from_headers(headers: Sequence[tuple[str, str]], players: int
                       ) -> list[SeatSpec] | None:
    """The seats a saved game was played with (``seat.N`` headers), if it has them."""
    found: dict[int, str] = {}
    for key, value in headers:
        if key.startswith("seat.") and key[5:].isdigit():
            found[int(key[5:])] = value
    if sorted(found) != list(range(players)):
        return None
    from xactika.core.bots.agents import agent_names

    return [parse_seat_spec(found[s], agent_names()) for s in range(players)]


__all__ = ["Reply", "SeatSpec", "Session", "parse_seat_spec", "seats_from_headers"]
