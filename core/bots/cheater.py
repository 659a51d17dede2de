"""The limit: a bot that sees every hand. For the strength study only, never a seat.

It bounds what better inference could ever give the strong bot: with every hand known
and the other seats modelled as the heuristic (deterministic, so their replies are
known too), it searches its own moves exhaustively once it holds at most ``exact``
cards, and ``depth`` of its own moves ahead (its later moves then the heuristic's)
before that: the best response to heuristic opponents, exact in the end game and
near-exact before it. Leads are tried with the call that the fewest and the most cards
left in the other hands could beat. It bids the bid whose solved round scores best,
the seats still to bid bidding by the rule of thumb on their real hands.

This module is deliberately not among ``agents.BOT_MODULES`` and registers no name:
an agent that reads the omniscient state must never be offered to ``--seat``,
``xactika bot`` or a match (tests/test_cheater.py asserts so). The study drives it with
:func:`play_with_cheaters`, which hands it the state.
"""

from __future__ import annotations

from collections.abc import Sequence

from xactika.core import (
    Bid,
    Command,
    Config,
    Event,
    Legal,
    Play,
    State,
    legal_actions,
    replay,
    start,
    step,
    view,
)
from xactika.core.bots.agents import Agent, self_play
from xactika.core.bots.heuristic import bid_estimate, knowledge
from xactika.core.bots.search import (
    _MODES,
    ALL,
    CALL_INDEX,
    CALL_OF,
    CALLS_OF,
    CARDS,
    CMASK,
    GE,
    INDEX,
    MODE_BID,
    MODE_WIN,
    SHOW,
    VAL,
    fast_bid,
    legal_bids,
    policy,
    score,
)


class _Round:
    """A round in progress over card indices: everything the search branches on."""

    __slots__ = (
        "best_v",
        "call",
        "count",
        "hands",
        "played",
        "taken",
        "to_act",
        "voids",
        "winner",
    )

    def __init__(self, hands: list[list[int]], to_act: int, call: int, best_v: int,
                 winner: int, count: int, taken: list[int], played: int,
                 voids: list[int]) -> None:
        self.hands, self.to_act, self.call, self.best_v = hands, to_act, call, best_v
        self.winner, self.count, self.taken = winner, count, taken
        self.played, self.voids = played, voids

    def copy(self) -> _Round:
        return _Round([list(h) for h in self.hands], self.to_act, self.call, self.best_v,
                      self.winner, self.count, list(self.taken), self.played,
                      list(self.voids))

    def play(self, c: int, k: int) -> None:
        """Seat ``to_act`` plays card ``c`` (calling ``k`` when it leads)."""
        p = self.to_act
        n = len(self.hands)
        if self.count == 0:
            self.call, self.best_v, self.winner = k, VAL[c], p
        elif SHOW[c] >> self.call & 1:
            if VAL[c] >= self.best_v:
                self.best_v, self.winner = VAL[c], p
        else:
            self.voids[p] |= 1 << self.call
        self.hands[p].remove(c)
        self.played |= 1 << c
        self.count += 1
        if self.count == n:
            self.taken[self.winner] += 1
            self.to_act, self.count = self.winner, 0
        else:
            self.to_act = (p + 1) % n


class CheaterAgent:
    """Perfect information: best response to heuristic play, searched over its own moves."""

    name = "cheater"

    def __init__(self, depth: int = 2, exact: int = 3) -> None:
        self.depth = depth
        self.exact = exact
        self.leaves = 0  # rounds played out, for the study's cost figures

    # -- the search
    def _options(self, r: _Round, me: int, want: bool) -> list[tuple[int, int]]:
        """Every legal card; a lead with two calls, and with the heuristic's own lead, so
        the heuristic's plan is always among those searched (the search never does worse)."""
        hand = r.hands[me]
        if r.count:
            follows = [x for x in hand if SHOW[x] >> r.call & 1]
            return [(x, -1) for x in follows or hand]
        mine = 0
        for x in hand:
            mine |= 1 << x
        n = len(r.hands)
        moves = [policy(me, hand, mine, r.played, r.voids, n, 0, -1, -1, want)]
        rest = 0
        for s, h in enumerate(r.hands):
            if s != me:
                for x in h:
                    rest |= 1 << x
        for x in hand:
            beat = [((rest & GE[x] & CMASK[k]).bit_count(), k) for k in CALLS_OF[x]]
            for _, k in (min(beat), max(beat)):
                if (x, k) not in moves:
                    moves.append((x, k))
        return moves

    def _value(self, r: _Round, me: int, bids: Sequence[int], mode: int, budget: int) -> int:
        """Points for ``me`` at the end of the round, its next ``budget`` moves searched."""
        n = len(r.hands)
        while True:
            p = r.to_act
            if r.count == 0 and not r.hands[p]:
                self.leaves += 1
                return score(mode, bids[me], r.taken[me])
            want = mode == MODE_WIN or (mode == MODE_BID and r.taken[p] < bids[p])
            if p == me and (budget > 0 or len(r.hands[me]) <= self.exact):
                options = self._options(r, me, want)
                if len(options) > 1:
                    best = None
                    for c, k in options:
                        branch = r.copy()
                        branch.play(c, k)
                        v = self._value(branch, me, bids, mode, budget - 1)
                        if best is None or v > best:
                            best = v
                    assert best is not None
                    return best
                c, k = options[0]
            else:
                hand = r.hands[p]
                mask = 0
                for x in hand:
                    mask |= 1 << x
                c, k = policy(p, hand, mask, r.played, r.voids, n, r.count, r.call,
                              r.best_v, want)
            r.play(c, k)

    # -- the decisions
    def decide(self, state: State, legal: Legal) -> Command:
        """The move for ``legal.seat``, seeing the whole ``state``."""
        me = legal.seat
        if me is None:
            raise ValueError("nobody may act")
        mode = _MODES[state.config.mode]
        r = self._round(state, me)
        if legal.kind == "bid":
            return Bid(me, self._bid(state, r, me, legal.bids))
        bids = [b if b is not None else 0 for b in state.bids]
        best: tuple[int, int] | None = None
        best_v = 0
        want = mode == MODE_WIN or (mode == MODE_BID and r.taken[me] < bids[me])
        for c, k in self._options(r, me, want):
            branch = r.copy()
            branch.play(c, k)
            v = self._value(branch, me, bids, mode, self.depth - 1)
            if best is None or v > best_v:
                best, best_v = (c, k), v
        assert best is not None
        c, k = best
        return Play(me, CARDS[c], CALL_OF[k] if k >= 0 else None)

    def _bid(self, state: State, r: _Round, me: int, legal: Sequence[int]) -> int:
        n = state.config.players
        order = [(state.dealer + 1 + i) % n for i in range(n)]
        after = order[order.index(me) + 1:]
        est = bid_estimate([CARDS[x] for x in r.hands[me]])
        cands = [b for b in legal if abs(b - est) <= 2.5] or list(legal)
        best, best_v = cands[0], None
        for b in cands:
            bids: list[int | None] = list(state.bids)
            bids[me] = b
            for s in after:
                bids[s] = fast_bid(r.hands[s], legal_bids(bids, s, state.dealer))
            full = [x if x is not None else 0 for x in bids]
            v = self._value(r.copy(), me, full, MODE_BID, self.depth)
            if best_v is None or v > best_v:
                best, best_v = b, v
        return best

    @staticmethod
    def _round(state: State, me: int) -> _Round:
        hands = [sorted(INDEX[c] for c in h) for h in state.hands]
        voids = [sum(1 << CALL_INDEX[k] for k in v) for v in knowledge(view(state, me)).voids]
        played = 0
        for t in state.tricks:
            for _, card in t.plays:
                played |= 1 << INDEX[card]
        call, best_v, winner = -1, -1, me
        for s, card in state.trick:
            played |= 1 << INDEX[card]
            if card.shows(state.call) and card.value >= best_v:
                best_v, winner = card.value, s
        if state.trick:
            call = CALL_INDEX[state.call]
        return _Round(hands, me, call, best_v, winner, len(state.trick), list(state.taken),
                      played & ALL, voids)



def play_with_cheaters(config: Config, agents: Sequence[Agent | CheaterAgent]
                       ) -> tuple[State, list[Event]]:
    """A whole game; a :class:`CheaterAgent` is handed the state, the others their view
    (without a cheater, exactly :func:`self_play`)."""
    if not any(isinstance(a, CheaterAgent) for a in agents):
        return self_play(config, [a for a in agents if not isinstance(a, CheaterAgent)])
    events = start(config)
    state = replay(events)
    while (legal := legal_actions(state)).seat is not None:
        agent = agents[legal.seat]
        if isinstance(agent, CheaterAgent):
            command = agent.decide(state, legal)
        else:
            command = agent.choose(view(state, legal.seat), legal)
        state, new = step(state, command)
        events.extend(new)
    return state, events
