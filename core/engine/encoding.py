"""Action ids, tensors and text for the AI bridges (OpenSpiel, PettingZoo) and the JAX module.

Both bridges number moves the same way and show a seat the same numbers, so this module
holds that once. Everything here is built from :class:`SeatView` (what ``view(state,
seat)`` shows) or :class:`Legal` (what ``legal_actions`` allows), never from the
omniscient state, so a bridge cannot leak another seat's cards through it.

Action ids, for a game whose deck has ``D`` cards (Xactika 81, Dix 53), ``B`` bids
(Xactika 9: 0 to 8, only in Play to Bid; Dix none) and ``C`` calls per card (Xactika 4,
one per shape in the order balls, cubes, cones, stars; Dix none):

- ``0 .. B-1``: bid that many tricks;
- ``B + i``: play deck card ``i`` (a follow; in a game without calls, also a lead);
- ``B + D + C*i + k``: lead deck card ``i`` calling its ``k``-th call (``card.calls[k]``,
  the count it shows of shape ``k``).

The deck order is the game's ``deck`` (Xactika: balls, cubes, cones, stars counting 1 to 3;
see ``xactika.core.games``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from xactika.core.engine.api import Bid, Command, Config, Legal, Play, TrickGame, game_rules
from xactika.core.engine.views import SeatView


@attrs.frozen(slots=True)
class Piece:
    """A named slice of the flat tensor: ``size`` floats viewed as ``shape``."""

    name: str
    start: int
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


class Encoding:
    """Move ids and the view tensor of one game's settings (game, mode, players, rounds)."""

    def __init__(self, config: Config) -> None:
        rules = game_rules(config.game)
        rules.validate(attrs.evolve(config, seed=0 if config.seed is None else config.seed))
        self.config = config
        self.rules: TrickGame = rules
        self.deck: tuple[Any, ...] = rules.deck
        self.index = {card: i for i, card in enumerate(self.deck)}
        self.hand_size = rules.max_hand_size(config)
        self.players = config.players
        self.bids = self.hand_size + 1 if rules.has_bidding(config) else 0
        calls = rules.calls_for(self.deck[0])
        self.calls = 0 if calls == (None,) else len(calls)
        if any(len(rules.calls_for(card)) != max(self.calls, 1) for card in self.deck):
            raise ValueError(f"{config.game}: every card must allow the same number of calls")
        self.lead_base = self.bids + len(self.deck)
        self.num_actions = self.lead_base + len(self.deck) * self.calls
        # the most tricks of any round (Dix's draws refill hands: more tricks than cards)
        self.tricks = max(rules.tricks_per_round(config, r) for r in range(1, config.rounds + 1))
        p, d = self.players, len(self.deck)
        shapes: list[tuple[str, tuple[int, ...]]] = [
            ("seat", (p,)),
            ("to_act", (p,)),
            ("dealer", (p,)),
            ("round", (config.rounds,)),
            ("hand", (d,)),
            ("hand_sizes", (p,)),
            ("turned", (d,)),
            ("bids", (p, max(self.bids, 1))),
            ("taken", (p,)),
            ("totals", (p,)),
            # one slot a trick of the round, the current one included: who led, the
            # call, each seat's card, who won (nobody yet for the current trick)
            ("trick_leader", (self.tricks, p)),
            ("trick_call", (self.tricks, max(self.calls, 1))),
            ("trick_cards", (self.tricks, p, d)),
            ("trick_winner", (self.tricks, p)),
        ]
        self.pieces: list[Piece] = []
        start = 0
        for name, shape in shapes:
            piece = Piece(name, start, shape)
            self.pieces.append(piece)
            start += piece.size
        self.tensor_size = start
        self._at = {piece.name: piece.start for piece in self.pieces}

    # -- moves
    def action(self, command: Command) -> int:
        """The id of a command (which must be legal where it is used)."""
        if isinstance(command, Bid):
            return command.bid
        i = self.index[command.card]
        if command.call is None:
            return self.bids + i
        return self.lead_base + self.calls * i + self.rules.calls_for(command.card).index(
            command.call
        )

    def command(self, action: int, legal: Legal) -> Command:
        """The command ``action`` names for the seat in ``legal``; ValueError if illegal."""
        if legal.seat is None:
            raise ValueError(f"action {action}: nobody may act now")
        seat = legal.seat
        command: Command
        if 0 <= action < self.bids:
            command = Bid(seat, action)
        elif self.bids <= action < self.lead_base:
            command = Play(seat, self.deck[action - self.bids])
        elif self.lead_base <= action < self.num_actions:
            i, k = divmod(action - self.lead_base, self.calls)
            card = self.deck[i]
            command = Play(seat, card, self.rules.calls_for(card)[k])
        else:
            raise ValueError(f"action {action} is out of range 0 to {self.num_actions - 1}")
        if command not in legal:
            raise ValueError(f"action {action} ({self.describe(action)}) is not legal now")
        return command

    def legal(self, legal: Legal) -> list[int]:
        """The legal ids, ascending: ``legal.commands()`` numbered (a lead may make every
        call its card allows, so a lead's ids are its card's whole block)."""
        if legal.seat is None:
            return []
        if legal.kind == "bid":
            return sorted(legal.bids)
        index = self.index
        if legal.kind == "lead" and self.calls:
            c = self.calls
            base = self.lead_base
            return sorted(base + c * index[card] + k for card in legal.cards for k in range(c))
        base = self.bids
        return sorted(base + index[card] for card in legal.cards)

    def describe(self, action: int) -> str:
        """``bid 3``, ``play 1323``, ``lead 1323 2st``: the move in protocol words."""
        if 0 <= action < self.bids:
            return f"bid {action}"
        if self.bids <= action < self.lead_base:
            return f"play {self.deck[action - self.bids]}"
        if self.lead_base <= action < self.num_actions:
            i, k = divmod(action - self.lead_base, self.calls)
            card = self.deck[i]
            return f"lead {card} {self.rules.format_call(self.rules.calls_for(card)[k])}"
        return f"action {action}"

    # -- what a seat sees
    def tensor(self, view: SeatView) -> list[float]:
        """The flat tensor of ``view``: one float per cell of :attr:`pieces`."""
        out = [0.0] * self.tensor_size
        for i, value in self.cells(view):
            out[i] = value
        return out

    def cells(self, view: SeatView) -> list[tuple[int, float]]:
        """The tensor's nonzero cells, (index, value): a view sets a few dozen of the
        thousands, so numpy callers fill a zero array from these instead."""
        out: list[tuple[int, float]] = []
        put = out.append
        at = self._at
        p, d = self.players, len(self.deck)
        index = self.index
        put((at["seat"] + view.seat, 1.0))
        if view.to_act is not None:
            put((at["to_act"] + view.to_act, 1.0))
        put((at["dealer"] + view.dealer, 1.0))
        if 1 <= view.round <= self.config.rounds:
            put((at["round"] + view.round - 1, 1.0))
        for card in view.hand:
            put((at["hand"] + index[card], 1.0))
        for s, size in enumerate(view.hand_sizes):
            if size:
                put((at["hand_sizes"] + s, float(size)))
        if view.turned is not None:
            put((at["turned"] + index[view.turned], 1.0))
        if self.bids:
            for s, bid in enumerate(view.bids):
                if bid is not None:
                    put((at["bids"] + s * self.bids + bid, 1.0))
        for s, n in enumerate(view.taken):
            if n:
                put((at["taken"] + s, float(n)))
        for s, n in enumerate(view.totals):
            if n:
                put((at["totals"] + s, float(n)))
        slots: list[tuple[Any, Sequence[tuple[int, Any]], int | None]] = [
            (t.call, t.plays, t.winner) for t in view.tricks
        ]
        if view.trick:
            slots.append((view.call, view.trick, None))
        for t, (call, plays, winner) in enumerate(slots[: self.tricks]):
            put((at["trick_leader"] + t * p + plays[0][0], 1.0))
            if call is not None and self.calls:
                k = self.rules.calls_for(plays[0][1]).index(call)
                put((at["trick_call"] + t * self.calls + k, 1.0))
            for seat, card in plays:
                put((at["trick_cards"] + (t * p + seat) * d + index[card], 1.0))
            if winner is not None:
                put((at["trick_winner"] + t * p + winner, 1.0))
        return out

    def text(self, view: SeatView) -> str:
        """The view as one line of protocol words: everything the tensor holds, readable."""
        rules = self.rules

        def cards(items: Sequence[Any]) -> str:
            return ",".join(str(c) for c in items) or "-"

        def opt(value: Any) -> str:
            return "?" if value is None else str(value)

        parts = [
            f"seat={view.seat}",
            f"round={view.round}/{self.config.rounds}",
            f"dealer={view.dealer}",
            f"to_act={opt(view.to_act)}",
            f"hand={cards(view.hand)}",
            "sizes=" + "/".join(str(n) for n in view.hand_sizes),
        ]
        if view.turned is not None:
            parts.append(f"turned={view.turned}")
        if self.bids:
            parts.append("bids=" + "/".join(opt(b) for b in view.bids))
        parts.append("taken=" + "/".join(str(n) for n in view.taken))
        parts.append("totals=" + "/".join(str(n) for n in view.totals))
        for t in view.tricks:
            call = "" if t.call is None else ":" + rules.format_call(t.call)
            plays = ",".join(f"{s}={c}" for s, c in t.plays)
            parts.append(f"trick{call}[{plays}]>{t.winner}")
        if view.trick:
            call = "" if view.call is None else ":" + rules.format_call(view.call)
            plays = ",".join(f"{s}={c}" for s, c in view.trick)
            parts.append(f"trick{call}[{plays}]")
        return " ".join(parts)
