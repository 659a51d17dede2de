"""A hostile player-protocol bot: it remembers what one game showed it to see through the next.

Duplicate play deals every deal again with the bots moved round the table, so whatever a
bot keeps from one seating tells it the other hands in the next. This bot tries two
ways, and says on stderr what it predicted, so a test can score it against the records:

* **seed**: it keeps every seed a ``game-over`` line reveals; when a later game deals it
  a hand that a kept seed deals to its seat, it computes every other hand from that seed;
* **cards**: it keeps the cards each seat played in round 1 of every game; when a later
  game deals it exactly the cards its seat played before, the other seats' hands are the
  cards they played then.

Memory lives in the process (it survives between games when the runner keeps the process,
``restart=off``) and, with ``--memory FILE``, in a file, which survives a restart unless
the file is wiped or unwritable (``--memory private``: in the bot's temporary directory,
the one the sandbox gives it and wipes between games). Lines on stderr:

    seed-memory saw-seed commit=<c> seed=<s>
    seed-memory predict {"by": "seed"|"cards", "commit": "<c>", "seat": <s>, "hands": [...]}

Usage: ``python3 seed_memory_bot.py [--memory FILE|private] [--only seed|cards]``; it plays the
first legal option.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any

import attrs

from xactika.core.engine.api import Config, Dealt, GameOver, GameStarted, Led, Played, game_rules
from xactika.protocol.notation.text import parse_event

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import answer, say  # the honest part every hostile bot shares


class Memory:
    """What the bot carries from game to game: seeds seen, and round 1's played cards."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.seeds: list[int] = []
        self.games: list[list[list[str]]] = []  # per game, per seat: the cards of round 1
        if path is not None:
            try:
                with open(path, encoding="utf-8") as fh:
                    data = json.load(fh)
                self.seeds = [int(s) for s in data["seeds"]]
                self.games = data["games"]
            except (OSError, ValueError, KeyError):
                pass

    def save(self) -> None:
        if self.path is None:
            return
        try:
            with open(self.path, "w", encoding="utf-8") as fh:
                json.dump({"seeds": [str(s) for s in self.seeds], "games": self.games}, fh)
        except OSError as exc:
            say_err(f"cannot keep memory in {self.path}: {exc}")


def say_err(line: str) -> None:
    print(f"seed-memory {line}", file=sys.stderr, flush=True)


def predict(memory: Memory, config: Config, seat: int, dealt: Dealt, ways: str) -> None:
    """Every other hand of round 1, from a kept seed or kept cards, if either fits."""
    own = sorted(str(c) for c in dealt.hands[seat] or ())
    rules = game_rules(config.game)
    for seed in memory.seeds if ways in ("both", "seed") else ():
        guess = rules.deal(attrs.evolve(config, seed=seed), 1, dealt.dealer)
        hands = [[str(c) for c in h or ()] for h in guess.hands]
        if sorted(hands[seat]) == own:
            report("seed", config, seat, hands)
            return
    for played in memory.games if ways in ("both", "cards") else ():
        if len(played) == config.players and sorted(played[seat]) == own:
            report("cards", config, seat, played)
            return


def report(by: str, config: Config, seat: int, hands: list[list[str]]) -> None:
    say_err("predict " + json.dumps({"by": by, "commit": config.commit, "seat": seat,
                                     "hands": hands}))


def main() -> None:
    args = sys.argv[1:]
    path = args[args.index("--memory") + 1] if "--memory" in args else None
    if path == "private":  # its own temporary directory: the sandbox's wiped one, or /tmp
        path = os.path.join(tempfile.gettempdir(), "seed-memory.json")
    ways = args[args.index("--only") + 1] if "--only" in args else "both"
    memory = Memory(path)
    seat = 0
    config: Config | None = None
    played: list[list[str]] = []
    round_no = 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "hello":
            say("hello 1 name=seed-memory")
        elif words[0] == "isready":
            say("readyok")
        elif words[0] == "newgame":
            seat = int(dict(w.partition("=")[::2] for w in words[1:])["seat"])
            config, played, round_no = None, [], 0
        elif words[0] == "event":
            event: Any = parse_event(line, game_rules(config.game) if config else None)
            if isinstance(event, GameStarted):
                config = event.config
                played = [[] for _ in range(config.players)]
            elif isinstance(event, Dealt) and config is not None:
                round_no = event.round
                if round_no == 1:
                    predict(memory, config, seat, event, ways)
            elif isinstance(event, (Led, Played)) and round_no == 1:
                played[event.seat].append(str(event.card))
            elif isinstance(event, GameOver):
                if event.seed is not None and config is not None:
                    say_err(f"saw-seed commit={config.commit} seed={event.seed}")
                    memory.seeds.append(event.seed)
                memory.games.append(played)
                memory.save()
        elif words[0] == "go":
            say(answer(words))
        elif words[0] == "quit":
            break


if __name__ == "__main__":
    main()
