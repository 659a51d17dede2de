"""Train the inference networks the strong bot weights its sampled deals by.

    nice -n 10 .venv/bin/python study/train_inference.py --out core/bots/inference.npz

Data: rounds of self-play on the strong bot's private simulator (``search.policy``, the
heuristic bot move for move), with noise so the networks learn a soft policy rather than
a rule: each play is a random legal card with odds ``--eps``, each bid the rule of thumb
missed by one with odds ``--bid-eps``. Every bid and every card play is one example: the
acting seat's public view and its own hand (the hidden hands are known here, for
training only) and the choice it made. Players 2 to 6 (mostly 4), all three modes.
``--strong-rounds`` adds rounds through the core with the strong bot (a few deals a
decision) on some seats, read back from the views: the networks must read a searching
opponent too. The defaults made the shipped weights.

Models (:mod:`xactika.core.bots.infer`): a bid network and a play network (card and the
lead's call), each an MLP of two hidden layers over the public input and the hand. The
weights go to an .npz with a header (the commit, the data size, the seeds, the losses);
the bot reads them with numpy only. Needs ``pip install '.[train]'`` (PyTorch, CPU).
Fixed seeds: the same command gives the same data; torch on one thread, the same weights.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from xactika.core.bots.infer import (
    BID_PUBLIC,
    CARD_CALLS,
    NBIDS,
    NCALLS,
    NCARDS,
    PLAY_PUBLIC,
    encode_bid,
    encode_play,
)
from xactika.core.bots.search import fast_bid, legal_bids, policy
from xactika.core.games.xactika import TRICKS_PER_ROUND
from xactika.core.games.xactika.tables import SHOW, VAL

PLAYERS = (2, 3, 4, 4, 4, 4, 4, 4, 5, 5, 6)
MODES = ("bid", "bid", "bid", "win", "lose")


class Data:
    """Examples in growing uint8 arrays (inputs are 0/1)."""

    def __init__(self, width: int, cap: int) -> None:
        self.pub = np.zeros((cap, width), dtype=np.uint8)
        self.hand = np.zeros((cap, NCARDS), dtype=np.uint8)
        self.target = np.zeros(cap, dtype=np.int16)
        self.extra = np.zeros(cap, dtype=np.int16)  # the lead's call, or -1
        self.legal: list[int] = []  # card or bid bitmask
        self.n = 0

    def add(self, row: np.ndarray, hand: list[int], target: int, legal: int,
            extra: int = -1) -> None:
        if self.n == len(self.pub):
            for name in ("pub", "hand", "target", "extra"):
                a = getattr(self, name)
                setattr(self, name, np.concatenate([a, np.zeros_like(a)]))
        self.pub[self.n] = row
        self.hand[self.n, hand] = 1
        self.target[self.n] = target
        self.extra[self.n] = extra
        self.legal.append(legal)
        self.n += 1


def play_round(rng: random.Random, bids_d: Data, plays_d: Data | None, eps: float,
               bid_eps: float) -> None:
    """One round of noisy self-play, its decisions added (only the bids: no ``plays_d``)."""
    n = rng.choice(PLAYERS)
    mode = rng.choice(MODES)
    dealer = rng.randrange(n)
    deck = list(range(NCARDS))
    rng.shuffle(deck)
    hands = [sorted(deck[i * TRICKS_PER_ROUND:(i + 1) * TRICKS_PER_ROUND]) for i in range(n)]
    bids: list[int | None] = [None] * n
    if mode == "bid":
        for i in range(n):
            s = (dealer + 1 + i) % n
            legal = legal_bids(bids, s, dealer)
            b = fast_bid(hands[s], legal)
            if rng.random() < bid_eps:
                near = [x for x in legal if abs(x - b) == 1]
                b = rng.choice(near) if near else b
            row = np.zeros(BID_PUBLIC, dtype=np.float32)
            encode_bid(row, n, s, dealer, bids)
            bids_d.add(row, hands[s], b, sum(1 << x for x in legal))
            bids[s] = b
    if plays_d is None:
        return
    full = [b or 0 for b in bids]
    masks = [sum(1 << x for x in h) for h in hands]
    taken = [0] * n
    voids = [0] * n
    played = 0
    to_act = (dealer + 1) % n
    for _ in range(TRICKS_PER_ROUND):
        call = best = -1
        winner = to_act
        trick = 0
        for count in range(n):
            p = to_act
            hand = hands[p]
            want = mode == "win" or (mode == "bid" and taken[p] < full[p])
            if count == 0:
                legal = hand
            else:
                legal = [x for x in hand if SHOW[x] >> call & 1] or hand
            if rng.random() < eps:
                c = rng.choice(legal)
                k = rng.choice(CARD_CALLS[c]) if count == 0 else -1
            else:
                c, k = policy(p, hand, masks[p], played, voids, n, count, call, best, want)
            row = np.zeros(PLAY_PUBLIC, dtype=np.float32)
            encode_play(row, n, p, mode, played, trick, count, call, best, voids, want,
                        full[p] - taken[p], len(hand))
            plays_d.add(row, hand, c, sum(1 << x for x in legal), k)
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
            trick |= 1 << c
            to_act = (p + 1) % n
        taken[winner] += 1
        to_act = winner


def strong_round(i: int, rng: random.Random, bids_d: Data, plays_d: Data,
                 deals: int) -> None:
    """A round through the core with the strong bot (``deals`` a decision) on some
    seats: its bids and plays are not the heuristic's, and the inference must read them
    too. Every seat's decisions are read back from the views at the end of the round."""
    from xactika.core import Config, view
    from xactika.core.bots.agents import self_play
    from xactika.core.bots.heuristic import HeuristicAgent
    from xactika.core.bots.infer import Evidence, load
    from xactika.core.bots.search import StrongAgent

    n = rng.choice(PLAYERS)
    mode = rng.choice(MODES)
    agents = [StrongAgent(i * 16 + s, think_ms=1e9, max_deals=deals, min_deals=deals)
              if rng.random() < 0.6 else HeuristicAgent(s) for s in range(n)]
    state, _ = self_play(Config(mode=mode, players=n, rounds=1, seed=5_000_011 + i,
                                dealer=rng.randrange(n)), agents)
    model = load()
    for observer in (0, 1):
        v = view(state, observer)
        seats = [s for s in range(n) if s != observer]
        keep = seats if observer == 0 else [0]
        ev = Evidence(v, seats, model)
        for r in range(ev.n_plays):
            s = seats[int(ev.p_who[r])]
            if s not in keep:
                continue
            held = ev.p_held[r].astype(bool)
            follows = held & ev.p_follow[r]
            legal = follows if follows.any() else held
            plays_d.add(ev.p_rows[r], list(np.flatnonzero(held)), int(ev.p_card[r]),
                        sum(1 << int(x) for x in np.flatnonzero(legal)),
                        int(ev.p_call[r]) if ev.p_lead[r] else -1)
        for r in range(ev.n_bids):
            i_seat = int(ev.b_who[r])
            if seats[i_seat] not in keep:
                continue
            legal = np.flatnonzero(np.isfinite(ev.b_mask[r]))
            bids_d.add(ev.b_rows[r], list(np.flatnonzero(ev.shown[i_seat])),
                       int(ev.b_made[r]), sum(1 << int(x) for x in legal))


def run_epochs(net: Any, loss_of: Callable[[Any], tuple[Any, Any]], train_ix: Any,
               hold: Any, args: argparse.Namespace, g: Any, label: str) -> dict[str, float]:
    """Adam with a cosine schedule over ``args.epochs``, the held-out loss and top-1
    printed after each; the last ones returned. Shared with ``train_locate.py``."""
    import torch

    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, args.epochs)
    t0 = time.time()
    for epoch in range(args.epochs):
        net.train()
        order = train_ix[torch.randperm(len(train_ix), generator=g)]
        for i in range(0, len(order), args.batch):
            loss, _ = loss_of(order[i:i + args.batch])
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        net.eval()
        with torch.no_grad():
            hl, ha = loss_of(hold)
        print(f"{label} {epoch + 1}: held-out loss {hl.item():.4f} top-1 {ha.item():.3f} "
              f"({time.time() - t0:.0f} s)", flush=True)
    return {"held_out_loss": round(hl.item(), 4), "held_out_top1": round(ha.item(), 4)}


def training_args(p: argparse.ArgumentParser, seed: int, h2: int, epochs: int,
                  out: str) -> None:
    """The options this script and ``train_locate.py`` share: the self-play's noise,
    the network's size, the optimiser, the output."""
    p.add_argument("--seed", type=int, default=seed)
    p.add_argument("--eps", type=float, default=0.1, help="odds a play is random")
    p.add_argument("--bid-eps", type=float, default=0.15, help="odds a bid misses by one")
    p.add_argument("--h1", type=int, default=256)
    p.add_argument("--h2", type=int, default=h2)
    p.add_argument("--epochs", type=int, default=epochs)
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", default=out)


def git_commit() -> str:
    """The commit the weights are trained at, for their header."""
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def legal_matrix(legal: list[int], width: int) -> np.ndarray:
    raw = np.frombuffer(b"".join(m.to_bytes(11, "little") for m in legal), dtype=np.uint8)
    return np.unpackbits(raw.reshape(len(legal), 11), axis=1, bitorder="little")[:, :width]


def train(args: argparse.Namespace, bids_d: Data, plays_d: Data) -> dict[str, Any]:
    import torch
    from torch import nn

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)

    class Net(nn.Module):
        def __init__(self, pub: int, outs: tuple[int, ...]) -> None:
            super().__init__()
            self.pub = nn.Linear(pub, args.h1)
            self.hand = nn.Linear(NCARDS, args.h1, bias=False)
            self.w2 = nn.Linear(args.h1, args.h2)
            self.heads = nn.ModuleList(nn.Linear(args.h2, k) for k in outs)

        def forward(self, pub: torch.Tensor, hand: torch.Tensor) -> list[torch.Tensor]:
            h = torch.relu(self.pub(pub) + self.hand(hand))
            h = torch.relu(self.w2(h))
            return [head(h) for head in self.heads]

    def tensors(d: Data, width: int) -> dict[str, torch.Tensor]:
        return {
            "pub": torch.from_numpy(d.pub[:d.n]),  # uint8: made float a batch at a time
            "hand": torch.from_numpy(d.hand[:d.n]),
            "target": torch.from_numpy(d.target[:d.n].astype(np.int64)),
            "extra": torch.from_numpy(d.extra[:d.n].astype(np.int64)),
            "legal": torch.from_numpy(legal_matrix(d.legal, width).astype(bool)),
        }

    call_of_card = torch.zeros((NCARDS, NCALLS), dtype=torch.bool)
    for c, ks in enumerate(CARD_CALLS):
        call_of_card[c, list(ks)] = True

    def fit(name: str, net: Net, t: dict[str, torch.Tensor], calls: bool) -> dict[str, float]:
        n = len(t["target"])
        g = torch.Generator().manual_seed(args.seed)
        perm = torch.randperm(n, generator=g)
        hold = perm[: n // 20]
        train_ix = perm[n // 20:]

        def loss_of(ix: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            out = net(t["pub"][ix].float(), t["hand"][ix].float())
            logits = out[0].masked_fill(~t["legal"][ix], -1e9)
            tgt = t["target"][ix]
            loss = nn.functional.cross_entropy(logits, tgt)
            acc = (logits.argmax(1) == tgt).float().mean()
            if calls:
                ex = t["extra"][ix]
                lead = ex >= 0
                if lead.any():
                    cl = out[1][lead].masked_fill(~call_of_card[tgt[lead]], -1e9)
                    loss = loss + nn.functional.cross_entropy(cl, ex[lead]) * lead.float().mean()
            return loss, acc

        return run_epochs(net, loss_of, train_ix, hold, args, g, f"{name} epoch")

    play_net = Net(PLAY_PUBLIC, (NCARDS, NCALLS))
    bid_net = Net(BID_PUBLIC, (NBIDS,))
    t0 = time.time()
    stats = {"play": fit("play", play_net, tensors(plays_d, NCARDS), True),
             "bid": fit("bid", bid_net, tensors(bids_d, NBIDS), False)}
    stats["train_s"] = round(time.time() - t0, 1)

    def arr(p: torch.Tensor) -> np.ndarray:
        return p.detach().numpy().astype(np.float32)

    weights = {
        "p_pub": arr(play_net.pub.weight.T), "p_b1": arr(play_net.pub.bias),
        "p_hand": arr(play_net.hand.weight.T),
        "p_w2": arr(play_net.w2.weight.T), "p_b2": arr(play_net.w2.bias),
        "p_card": arr(play_net.heads[0].weight.T), "p_cardb": arr(play_net.heads[0].bias),
        "p_call": arr(play_net.heads[1].weight.T), "p_callb": arr(play_net.heads[1].bias),
        "b_pub": arr(bid_net.pub.weight.T), "b_b1": arr(bid_net.pub.bias),
        "b_hand": arr(bid_net.hand.weight.T),
        "b_w2": arr(bid_net.w2.weight.T), "b_b2": arr(bid_net.w2.bias),
        "b_out": arr(bid_net.heads[0].weight.T), "b_outb": arr(bid_net.heads[0].bias),
    }
    stats["weights"] = weights
    return stats


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=4000)
    p.add_argument("--bid-rounds", type=int, default=15000,
                   help="more rounds whose bids only are kept (bids are few a round)")
    p.add_argument("--strong-rounds", type=int, default=700,
                   help="rounds through the core with the strong bot on some seats")
    p.add_argument("--strong-deals", type=int, default=8,
                   help="the strong bot's deals a decision in those rounds")
    training_args(p, seed=33, h2=128, epochs=5, out="core/bots/inference.npz")
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    bids_d = Data(BID_PUBLIC, 1 << 14)
    plays_d = Data(PLAY_PUBLIC, 1 << 16)
    t0 = time.time()
    for _ in range(args.rounds):
        play_round(rng, bids_d, plays_d, args.eps, args.bid_eps)
    for _ in range(args.bid_rounds):
        play_round(rng, bids_d, None, args.eps, args.bid_eps)
    for i in range(args.strong_rounds):
        strong_round(i, rng, bids_d, plays_d, args.strong_deals)
    gen_s = time.time() - t0
    print(f"data: {args.rounds} + {args.bid_rounds} (bids only) rounds, {bids_d.n} bids, "
          f"{plays_d.n} plays in {gen_s:.1f} s", flush=True)
    stats = train(args, bids_d, plays_d)
    weights = stats.pop("weights")
    commit = git_commit()
    meta = {"commit": commit, "rounds": args.rounds, "bid_rounds": args.bid_rounds,
            "strong_rounds": args.strong_rounds, "strong_deals": args.strong_deals,
            "bids": bids_d.n,
            "plays": plays_d.n, "seed": args.seed, "eps": args.eps,
            "bid_eps": args.bid_eps, "h1": args.h1, "h2": args.h2, "epochs": args.epochs,
            "data_s": round(gen_s, 1), **stats}
    np.savez_compressed(args.out, meta=np.array(json.dumps(meta)),
                        **weights)
    print(json.dumps(meta), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
