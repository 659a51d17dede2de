"""Train the card-location network the strong bot can draw its deals from.

    nice -n 10 .venv/bin/python study/train_locate.py --out core/bots/inference-locate.npz

The defaults made the shipped weights.

Card-location inference (Solinas, Rebstock, Sturtevant and Buro, 2019): from one seat's
view, the odds that each card it has not seen is in each other seat's hand or set aside.
Data: rounds of noisy heuristic self-play on the strong bot's private simulator (as
``train_inference.py``: a random legal play with odds ``--eps``, a bid off the rule by
one with odds ``--bid-eps``), and ``--strong-rounds`` rounds through the core with the
strong bot (``--strong-deals`` a decision) on some seats, read from the views the bot
itself gets (:func:`xactika.core.bots.infer.locate_input`). Each kept decision is one
example: the acting seat's view, and as labels (training only) where every card it has
not seen lies. Players 2 to 6 (mostly 4), all three modes.

The model (:class:`xactika.core.bots.infer.LocateModel`): an MLP of two hidden layers,
one softmax over the holders per card, trained by cross-entropy over the unseen cards
with the holders the view rules out (voids, empty hands, absent seats) masked; one round
in 20 is held out whole. Weights are stored in half precision with a header as
``train_inference.py``'s (the commit, the data size, seeds, losses), read by numpy alone;
the same command gives the same data and, on one torch thread, the same weights.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from typing import Any

import numpy as np

from xactika.core.bots.infer import (
    _L_PLAYERS,
    _L_SEAT,
    _L_SEATS,
    CARD_CALLS,
    LOCATE_INPUT,
    MAX_PLAYERS,
    NCALLS,
    NCARDS,
    NHOLD,
    encode_locate,
    locate_input,
)
from xactika.core.bots.search import fast_bid, legal_bids, policy
from xactika.core.games.xactika import TRICKS_PER_ROUND
from xactika.core.games.xactika.tables import INDEX, SHOW, VAL

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_inference import MODES, PLAYERS, git_commit, run_epochs, training_args


class Data:
    """Examples: uint8 inputs, and per card its holder (0 aside, i the i-th seat after
    the viewer; -1 when the viewer has seen the card)."""

    def __init__(self, cap: int) -> None:
        self.x = np.zeros((cap, LOCATE_INPUT), dtype=np.uint8)
        self.y = np.full((cap, NCARDS), -1, dtype=np.int8)
        self.n = 0
        self.rounds: list[int] = []  # each example's round, for a held-out set of rounds
        self.round = 0  # the round being played
        self.first_in: int | None = None  # where the examples read from files begin

    def add(self, row: np.ndarray, holder: np.ndarray) -> None:
        if self.n == len(self.x):
            self.x = np.concatenate([self.x, np.zeros_like(self.x)])
            self.y = np.concatenate([self.y, np.full_like(self.y, -1)])
        self.x[self.n] = row
        self.y[self.n] = holder
        self.rounds.append(self.round)
        self.n += 1

    def extend(self, x: np.ndarray, y: np.ndarray, rounds: np.ndarray | None = None
               ) -> None:
        """Examples saved before; with their ``rounds`` (``strong_data.py``'s files) they
        get fresh round numbers, so whole rounds of them are held out too."""
        if self.first_in is None:
            self.first_in = self.n
        need = self.n + len(x)
        if need > len(self.x):
            self.x = np.concatenate([self.x[:self.n], x])
            self.y = np.concatenate([self.y[:self.n], y])
        else:
            self.x[self.n:need] = x
            self.y[self.n:need] = y
        if rounds is None:
            self.rounds.extend([-1] * len(x))  # rounds unknown: never held out
        else:
            first = int(rounds.min()) if len(rounds) else 0
            self.rounds.extend((rounds.astype(np.int64) - first + self.round).tolist())
            self.round += int(rounds.max()) - first + 1 if len(rounds) else 0
        self.n = need


def labels(n: int, seat: int, hands: list[list[int]], seen: int) -> np.ndarray:
    """Where each card the viewer has not seen lies, relative to the viewer."""
    y = np.zeros(NCARDS, dtype=np.int8)  # aside unless a hand holds it
    for s in range(n):
        if s != seat:
            y[hands[s]] = (s - seat) % n
    y[[c for c in range(NCARDS) if seen >> c & 1]] = -1
    return y


def sim_round(rng: random.Random, data: Data, eps: float, bid_eps: float,
              keep: float) -> None:
    """One round of noisy heuristic self-play; each decision kept with odds ``keep``."""
    n = rng.choice(PLAYERS)
    mode = rng.choice(MODES)
    dealer = rng.randrange(n)
    deck = list(range(NCARDS))
    rng.shuffle(deck)
    hands = [sorted(deck[i * TRICKS_PER_ROUND:(i + 1) * TRICKS_PER_ROUND]) for i in range(n)]
    masks = [sum(1 << x for x in h) for h in hands]
    bids: list[int | None] = [None] * n
    shown = [0] * n
    voids = [0] * n
    taken = [0] * n

    def snap(p: int) -> None:
        if rng.random() >= keep:
            return
        row = np.zeros(LOCATE_INPUT, dtype=np.uint8)
        encode_locate(row, n, p, mode, masks[p], shown, voids,
                      bids if mode == "bid" else [None] * n, taken,
                      [len(h) for h in hands])
        seen = masks[p]
        for m in shown:
            seen |= m
        data.add(row, labels(n, p, hands, seen))

    if mode == "bid":
        for i in range(n):
            s = (dealer + 1 + i) % n
            legal = legal_bids(bids, s, dealer)
            snap(s)
            b = fast_bid(hands[s], legal)
            if rng.random() < bid_eps:
                near = [x for x in legal if abs(x - b) == 1]
                b = rng.choice(near) if near else b
            bids[s] = b
    full = [b or 0 for b in bids]
    played = 0
    to_act = (dealer + 1) % n
    for _ in range(TRICKS_PER_ROUND):
        call = best = -1
        winner = to_act
        for count in range(n):
            p = to_act
            hand = hands[p]
            snap(p)
            want = mode == "win" or (mode == "bid" and taken[p] < full[p])
            legal = hand if count == 0 else [x for x in hand if SHOW[x] >> call & 1] or hand
            if rng.random() < eps:
                c = rng.choice(legal)
                k = rng.choice(CARD_CALLS[c]) if count == 0 else -1
            else:
                c, k = policy(p, hand, masks[p], played, voids, n, count, call, best, want)
            if count == 0:
                call, best, winner = k, VAL[c], p
            elif SHOW[c] >> call & 1:
                if VAL[c] >= best:
                    best, winner = VAL[c], p
            else:
                voids[p] |= 1 << call
            hand.remove(c)
            masks[p] ^= 1 << c
            played |= 1 << c
            shown[p] |= 1 << c
            to_act = (p + 1) % n
        taken[winner] += 1
        to_act = winner


def strong_round(i: int, rng: random.Random, data: Data, deals: int, keep: float,
                 share: float = 0.6, every_view: bool = False) -> None:
    """A round through the core with the strong bot on a ``share`` of the seats, every
    kept decision read from the view the acting seat gets (the bot's own input), or
    with ``every_view`` from every seat's view at that point (more examples a round)."""
    from xactika.core import Config, legal_actions, new_game, step, view
    from xactika.core.bots.heuristic import HeuristicAgent
    from xactika.core.bots.search import StrongAgent

    n = rng.choice(PLAYERS)
    mode = rng.choice(MODES)
    agents = [StrongAgent(i * 16 + s, think_ms=1e9, max_deals=deals, min_deals=deals)
              if rng.random() < share else HeuristicAgent(s) for s in range(n)]
    state = new_game(Config(mode=mode, players=n, rounds=1, seed=7_000_003 + i,
                            dealer=rng.randrange(n)))
    while True:
        legal = legal_actions(state)
        if legal.seat is None:
            return
        v = view(state, legal.seat)
        for seat in range(n) if every_view else (legal.seat,):
            if rng.random() >= keep:
                continue
            w = view(state, seat)
            hands = [[INDEX[c] for c in h] for h in state.hands]
            seen = sum(1 << x for x in hands[seat])
            for t in w.tricks:
                for _, card in t.plays:
                    seen |= 1 << INDEX[card]
            for _, card in w.trick:
                seen |= 1 << INDEX[card]
            data.add(locate_input(w), labels(n, seat, hands, seen))
        state, _ = step(state, agents[legal.seat].choose(v, legal))


def train(args: argparse.Namespace, data: Data) -> dict[str, Any]:
    import torch
    from torch import nn

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    net = nn.Sequential(nn.Linear(LOCATE_INPUT, args.h1), nn.ReLU(),
                        nn.Linear(args.h1, args.h2), nn.ReLU(),
                        nn.Linear(args.h2, NCARDS * NHOLD))
    x_all = torch.from_numpy(data.x[:data.n])
    y_all = torch.from_numpy(data.y[:data.n].astype(np.int64))
    shows = torch.zeros((NCALLS, NCARDS))
    for c in range(NCARDS):
        for k in range(NCALLS):
            if SHOW[c] >> k & 1:
                shows[k, c] = 1

    def holder_mask(x: torch.Tensor) -> torch.Tensor:
        """(batch, 81, holders): the holders the view allows for each card."""
        b = len(x)
        seats = torch.stack([x[:, _L_SEATS + i * _L_SEAT:_L_SEATS + (i + 1) * _L_SEAT]
                             for i in range(MAX_PLAYERS - 1)], 1)  # (b, 9, seat block)
        voids = seats[:, :, NCARDS:NCARDS + NCALLS]
        barred = (voids @ shows) > 0  # (b, 9, 81)
        empty = seats[:, :, NCARDS + NCALLS + 19] > 0  # size 0
        players = x[:, _L_PLAYERS:_L_PLAYERS + 9].argmax(1) + 2
        absent = torch.arange(1, MAX_PLAYERS)[None, :] >= players[:, None]
        ok = ~(barred | (empty | absent)[:, :, None])  # (b, 9, 81)
        mask = torch.ones((b, NCARDS, NHOLD), dtype=torch.bool)
        mask[:, :, 1:] = ok.transpose(1, 2)
        return mask

    def loss_of(ix: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = x_all[ix].float()
        y = y_all[ix]
        logits = net(x).view(len(ix), NCARDS, NHOLD).masked_fill(~holder_mask(x), -1e9)
        unseen = y >= 0
        lp = torch.log_softmax(logits, -1)
        picked = lp.gather(2, y.clamp(min=0)[:, :, None])[:, :, 0]
        loss = -(picked * unseen).sum() / unseen.sum()
        acc = ((logits.argmax(-1) == y) & unseen).sum() / unseen.sum()
        return loss, acc

    g = torch.Generator().manual_seed(args.seed)
    # one round in 20 held out whole: a round's positions share its hands, and a
    # held-out position of a round trained on would flatter the fit
    held = torch.tensor([r >= 0 and r % 20 == 0 for r in data.rounds])
    hold = torch.nonzero(held)[:, 0]
    train_ix = torch.nonzero(~held)[:, 0]
    t0 = time.time()
    fit = run_epochs(net, loss_of, train_ix, hold, args, g, "epoch (loss a card)")
    if data.first_in is not None and bool((hold >= data.first_in).any()):
        with torch.no_grad():  # the files' own held-out rounds (the strong bot's, say)
            fit["held_out_loss_in"] = round(loss_of(hold[hold >= data.first_in])[0].item(), 4)

    def arr(p: torch.Tensor) -> np.ndarray:  # half precision: half the file, same odds
        return p.detach().numpy().astype(np.float16)

    return {**fit, "train_s": round(time.time() - t0, 1),
            "weights": {"l_w1": arr(net[0].weight.T), "l_b1": arr(net[0].bias),
                        "l_w2": arr(net[2].weight.T), "l_b2": arr(net[2].bias),
                        "l_w3": arr(net[4].weight.T), "l_b3": arr(net[4].bias)}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=48000)
    p.add_argument("--strong-rounds", type=int, default=0,
                   help="rounds through the core with the strong bot on some seats")
    p.add_argument("--strong-deals", type=int, default=8)
    p.add_argument("--strong-share", type=float, default=0.6,
                   help="odds a seat of those rounds is the strong bot")
    p.add_argument("--every-view", action="store_true",
                   help="keep every seat's view at each decision of those rounds")
    p.add_argument("--data-out", help="also save the examples here (.npz)")
    p.add_argument("--data-in", nargs="*", default=[],
                   help="add the examples saved in these files (--data-out)")
    p.add_argument("--keep", type=float, default=0.15, help="odds a decision is kept")
    training_args(p, seed=37, h2=256, epochs=6, out="core/bots/inference-locate.npz")
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    data = Data(1 << 16)
    t0 = time.time()
    for _ in range(args.rounds):
        sim_round(rng, data, args.eps, args.bid_eps, args.keep)
        data.round += 1
    sim_n = data.n
    for i in range(args.strong_rounds):
        strong_round(i, rng, data, args.strong_deals, args.keep, args.strong_share,
                     args.every_view)
        data.round += 1
    if args.data_out:
        np.savez_compressed(args.data_out, x=data.x[:data.n], y=data.y[:data.n])
    for path in args.data_in:
        with np.load(path) as z:
            data.extend(z["x"], z["y"], z["round"] if "round" in z else None)
    gen_s = time.time() - t0
    print(f"data: {args.rounds} + {args.strong_rounds} (strong) rounds, {data.n} positions "
          f"({data.n - sim_n} through the core) in {gen_s:.1f} s", flush=True)
    stats = train(args, data)
    weights = stats.pop("weights")
    commit = git_commit()
    meta = {"commit": commit, "rounds": args.rounds, "strong_rounds": args.strong_rounds,
            "strong_deals": args.strong_deals, "strong_share": args.strong_share,
            "every_view": args.every_view, "data_in": [os.path.basename(x) for x in
                                                     args.data_in],
            "positions": data.n,
            "core_positions": data.n - sim_n, "keep": args.keep, "seed": args.seed,
            "eps": args.eps, "bid_eps": args.bid_eps, "h1": args.h1, "h2": args.h2,
            "epochs": args.epochs, "data_s": round(gen_s, 1), **stats}
    np.savez_compressed(args.out, meta=np.array(json.dumps(meta)), **weights)
    print(json.dumps(meta), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
