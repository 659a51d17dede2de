"""The limit: a bot that sees every hand. For the strength study only, never a seat.

It bounds what better inference could ever give the strong bot: with every hand known
and the other seats modelled as the heuristic (deterministic, so their replies are
known too), it searches its own moves exhaustively once it holds at most ``exact``
cards, and ``depth`` of its own moves ahead (its later moves then the heuristic's)
before that: the best response to heuristic opponents, exact in the end game and
near-exact before it. Leads are tried with the call that the fewest and the most cards
left in the other hands could beat. It bids the bid whose solved round scores best,
the seats still to bid bidding by the rule of thumb on their real hands. The search
itself is :mod:`.plan`'s, which the strong bot's planning variant runs in sampled deals.
:class:`OracleSearch` is the other study-only bot here: the strong bot's own search
handed the true deal, which splits the bound into what inference could give the strong
bot as it is and what a better search would have to add.

This module is deliberately registered by no game (core/bots/games/) under any name:
an agent that reads the omniscient state must never be offered to ``--seat``,
``xactika bot`` or a match (tests/test_cheater.py asserts so). The study drives it with
:func:`play_with_cheaters`, which hands it the state. It lives here, in the core beside
the bots it bounds, rather than in study/: its search is :mod:`.plan`'s, the strong
bot's too, and the refusal to offer it anywhere is tested against this registry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xactika.core import (
    Bid,
    Command,
    Config,
    Event,
    Legal,
    Play,
    SeatView,
    State,
    view,
)
from xactika.core.bots.agents import Agent, self_play
from xactika.core.bots.heuristic import bid_estimate, knowledge
from xactika.core.bots.plan import Planner, Round, options
from xactika.core.bots.search import _MODES, MODE_BID, MODE_WIN, StrongAgent, fast_bid, legal_bids
from xactika.core.engine.referee import FaultPolicy, Referee, Turn, run
from xactika.core.games.xactika.tables import ALL, CALL_INDEX, CALL_OF, CARDS, INDEX


class CheaterAgent:
    """Perfect information: best response to heuristic play, searched over its own moves."""

    name = "cheater"

    def __init__(self, depth: int = 2, exact: int = 3) -> None:
        self.depth = depth
        self.planner = Planner(exact)  # its leaves count the rounds played out

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
        for c, k in options(r, me, want):
            branch = r.copy()
            branch.play(c, k)
            v = self.planner.value(branch, me, bids, mode, self.depth - 1)
            if best is None or v > best_v:
                best, best_v = (c, k), v
        assert best is not None
        c, k = best
        return Play(me, CARDS[c], CALL_OF[k] if k >= 0 else None)

    def _bid(self, state: State, r: Round, me: int, legal: Sequence[int]) -> int:
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
            v = self.planner.value(r.copy(), me, full, MODE_BID, self.depth)
            if best_v is None or v > best_v:
                best, best_v = b, v
        return best

    @staticmethod
    def _round(state: State, me: int) -> Round:
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
        return Round(hands, me, call, best_v, winner, len(state.trick), list(state.taken),
                      played & ALL, voids)



class OracleSearch(StrongAgent):
    """The strong bot's own search handed the true deal instead of sampled ones.

    It measures what perfect inference would give the strong bot's search as it is:
    ``at`` is "both" (every decision), "play" (the plays; bids as the strong bot) or
    "bid" (the bids; plays as the strong bot). With the true deal there is nothing to
    average, so one deal a decision is the whole search. Study only, like the cheater.
    """

    name = "oracle"

    def __init__(self, seed: int | None = None, at: str = "both", **kwargs: Any) -> None:
        if at not in ("both", "play", "bid"):
            raise ValueError(f"at={at!r}: expected both, play or bid")
        super().__init__(seed, **kwargs)
        self.at = at
        self.state: State | None = None
        self._bidding = False
        self._sampled = (self.max_deals, self.min_deals)

    def decide(self, state: State, legal: Legal) -> Command:
        self.state, self._bidding = state, legal.kind == "bid"
        return self.choose(view(state, legal.seat or 0), legal)

    def _deals(self, view: SeatView, seat: int) -> Callable[[], list[list[int]]]:
        if self.state is None or self.at == ("play" if self._bidding else "bid"):
            self.max_deals, self.min_deals = self._sampled
            return super()._deals(view, seat)
        self.max_deals = self.min_deals = 1
        hands = [sorted(INDEX[c] for c in h) for h in self.state.hands]
        return lambda: [list(h) for h in hands]


def play_with_cheaters(config: Config, agents: Sequence[Agent | CheaterAgent | OracleSearch]
                       ) -> tuple[State, list[Event]]:
    """A whole game; a :class:`CheaterAgent` or :class:`OracleSearch` is handed the
    state, the others their view (without either, exactly :func:`self_play`).

    The referee's loop (core/engine/referee.py) with the omniscient seats reading the
    turn's state; here no agent is told the events, each decides from what it is handed.
    """
    omniscient = (CheaterAgent, OracleSearch)
    if not any(isinstance(a, omniscient) for a in agents):
        return self_play(config, [a for a in agents if not isinstance(a, omniscient)])

    def ask(turn: Turn) -> Command:
        agent = agents[turn.seat]
        if isinstance(agent, omniscient):
            return agent.decide(turn.state, turn.legal)  # the referee's state: study only
        return agent.choose(turn.view, turn.legal)

    referee = run(Referee.new(config, policy=FaultPolicy.abort()), ask)
    return referee.state, referee.events
