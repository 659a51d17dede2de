"""Match bookkeeping without processes: bots, deals, the duplicate schedule, scoring.

Everything the match runner decides that does not need a running bot lives here, so
it can be tested quickly and reused (the rules are written down in spec/MATCH.md):

* a :class:`BotSpec` per bot, parsed from cutechess-style ``key=value`` tokens;
* deals: derived from one seed, or read from a deal file, and written back out;
* the duplicate schedule: tables of bots and the seat rotations played on every deal;
* the counting rule: a game's result per seat, with faulting seats forfeiting;
* the summary: per-bot estimates and paired differences over complete deals.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import math
import os
import re
import secrets
import shlex
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from xactika.core.engine.api import (
    Config,
    GameOver,
    GameStarted,
    PresetDeal,
    RoundScored,
    TrickGame,
    game_rules,
)
from xactika.core.engine.errors import ConfigError, ParseError, XactikaError
from xactika.core.engine.settings import Option, Options, options_of
from xactika.frontends.match.stats import (
    Estimate,
    HeadToHead,
    Rating,
    mean_ci,
    mean_rank,
    paired_diff,
    plackett_luce,
    wilson,
)
from xactika.protocol.notation.text import format_deals, parse_deals
from xactika.protocol.records.textform import Record

NAME = re.compile(r"^[A-Za-z0-9_.+-]{1,40}$")

# Termination reasons, in the order the spec lists them. "normal" means no fault.
REASONS = (
    "normal",
    "crash-startup",
    "timeout-startup",
    "crash",
    "timeout",
    "slow",
    "garbage",
    "illegal-move",
    "flood",
    "invalid-utf8",
    "closed-stdout",
    "closed-stdin",
    "early-answer",
    "extra-answer",
    "ignored-quit",
)
# Faults after which the game's result still stands for the bot (the game was over).
NON_FORFEIT = frozenset({"ignored-quit"})


class MatchError(XactikaError):
    """Match settings, a deal file or an output directory that cannot be used."""

    code = "match"


# --------------------------------------------------------------------------- bots


def parse_seconds(text: str, what: str) -> float:
    """``2``, ``1.5s``, ``500ms`` -> seconds; a clear error for anything else."""
    t = text.strip().lower()
    scale = 1.0
    if t.endswith("ms"):
        t, scale = t[:-2], 0.001
    elif t.endswith("s"):
        t = t[:-1]
    try:
        value = float(t) * scale
    except ValueError:
        raise MatchError(
            f"bad {what} {text!r}: expected seconds, e.g. 2, 1.5s or 500ms"
        ) from None
    if not math.isfinite(value) or value <= 0:
        raise MatchError(f"bad {what} {text!r}: expected a time above zero")
    return value


@attrs.frozen
class BotSpec:
    """One bot of a match: how to start it and its time limits (seconds)."""

    name: str
    cmd: tuple[str, ...]
    dir: str | None = None
    move: float = 1.0
    startup: float = 10.0
    margin: float = 0.05
    restart: bool = True  # a fresh process for every game; False keeps it between games
    remote: str | None = None  # the token of a bot that connects from elsewhere (SERVER.md)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "cmd": list(self.cmd), "dir": self.dir, "move": self.move,
            "startup": self.startup, "margin": self.margin, "restart": self.restart,
            "remote": self.remote,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BotSpec:
        return cls(d["name"], tuple(d["cmd"]), d.get("dir"), float(d["move"]),
                   float(d["startup"]), float(d.get("margin", 0.05)),
                   bool(d.get("restart", True)), d.get("remote"))

    @property
    def time_ms(self) -> int:
        """The move budget told to the bot in ``go ... time=``."""
        return max(1, round(self.move * 1000))

    @property
    def hard_limit(self) -> float:
        """How long the host waits at most: budget, margin, and one budget more.

        An answer after ``move + margin`` but before this is *slow*; none at all by
        then is a *timeout*.
        """
        return 2 * self.move + self.margin


BOT_KEYS = ("name", "cmd", "dir", "move", "startup", "margin", "restart", "remote")
REMOTE_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,128}$")


def builtin_command(name: str) -> tuple[str, ...]:
    """The command line that runs built-in bot ``name`` with this very Python."""
    return (sys.executable, "-m", "xactika.frontends.cli", "bot", name)


def builtin_of(bot: BotSpec) -> str | None:
    """The built-in bot that ``bot`` runs (``--bot heuristic``), None for a program."""
    *runner, name = bot.cmd or ("",)
    return name if tuple(runner) == builtin_command(name)[:-1] else None


def parse_bot(tokens: Sequence[str], each: Sequence[str] = (),
              builtins: Sequence[str] = ()) -> BotSpec:
    """A bot from ``name=X cmd="..." dir=D move=1s startup=10s margin=50ms restart=on``.

    A token without ``=`` names a built-in bot (``random``): the command then runs it
    with this Python, and the name defaults to it. ``each`` holds defaults for every bot.
    """
    values: dict[str, str] = {}
    builtin: str | None = None
    for token in [*each, *tokens]:
        key, eq, value = token.partition("=")
        if not eq:
            if builtins and token not in builtins:
                raise MatchError(
                    f"unknown built-in bot {token!r}: expected one of {', '.join(builtins)}, "
                    "or key=value options (name=, cmd=, dir=, move=, startup=, margin=, "
                    "restart=)"
                )
            builtin = token
            continue
        if key not in BOT_KEYS:
            raise MatchError(
                f"unknown bot option {key!r} in {token!r}: expected one of {', '.join(BOT_KEYS)}"
            )
        values[key] = value
    remote = values.get("remote")
    if remote is not None:  # played from another machine through xactika connect
        if not REMOTE_TOKEN.match(remote):
            raise MatchError("bad remote= token: expected 16 to 128 letters, digits, '-' or "
                             "'_' (e.g. python3 -c 'import secrets; print(secrets.token_hex(16))')")
        if "cmd" in values or builtin is not None or "name" not in values:
            raise MatchError("a remote bot takes name= and remote=TOKEN, and no cmd=")
        values["restart"] = "off"  # one connection serves game after game
        cmd: tuple[str, ...] = ()
    elif "cmd" in values:
        try:
            cmd = tuple(shlex.split(values["cmd"]))
        except ValueError as exc:
            raise MatchError(f"bad cmd {values['cmd']!r}: {exc}") from None
        if not cmd:
            raise MatchError("bot option cmd= is empty: expected a command line")
    elif builtin is not None:
        cmd = builtin_command(builtin)
    else:
        raise MatchError(
            f"bot {' '.join(tokens)!r} has no cmd=: expected cmd=\"COMMAND ARGS\" or the "
            "name of a built-in bot"
        )
    # a level's name (strong:3) is no bot name: it defaults to strong-3
    default = builtin.replace(":", "-") if builtin else os.path.basename(cmd[0]) if cmd else ""
    name = values["name"] if "name" in values else default
    if not NAME.match(name):
        raise MatchError(
            f"bad bot name {name!r}: expected 1-40 letters, digits or . _ + -"
        )
    directory = values.get("dir")
    if directory is not None and not os.path.isdir(directory):
        raise MatchError(f"bot {name}: dir={directory!r} is not a directory")
    return BotSpec(
        name=name,
        cmd=cmd,
        dir=directory,
        move=parse_seconds(values["move"], "move time") if "move" in values else 1.0,
        startup=parse_seconds(values["startup"], "start-up time")
        if "startup" in values else 10.0,
        margin=parse_seconds(values["margin"], "margin") if "margin" in values else 0.05,
        restart=_on_off(values.get("restart", "on"), "restart"),
        remote=remote,
    )


def _on_off(text: str, what: str) -> bool:
    if text not in ("on", "off"):
        raise MatchError(f"bad {what}={text!r}: expected on or off")
    return text == "on"


# --------------------------------------------------------------------------- deals


MATCH_SEED_BITS = 256  # the default match seed, and every seed derived from it
GUESSABLE_SEED_BITS = 128  # a given seed below 2**128 is not safely out of a search's reach


def new_match_seed() -> int:
    """A fresh match seed: 256 bits from ``secrets``, beyond any search (spec/MATCH.md)."""
    return secrets.randbits(MATCH_SEED_BITS)


def derived_seed(seed: int | None, label: str) -> int:
    """A 256-bit seed for ``label``, keyed by the match seed: HMAC-SHA256(seed, label).

    Keyed, so one derived seed says nothing of another, nor of the match seed, as long
    as the match seed is secret (spec/MATCH.md). ``None`` (a deal-file match, whose deals
    are public anyway) keys with the empty string.
    """
    key = b"" if seed is None else str(seed).encode("ascii")
    mac = hmac.new(key, f"xactika-match/v2/{label}".encode("ascii"), hashlib.sha256)
    return int.from_bytes(mac.digest(), "big")


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal number ``deal`` (1-based) of a match seeded with ``seed``."""
    return derived_seed(seed, f"deal/{deal}")


def materialize(config: Config) -> tuple[PresetDeal, ...]:
    """The preset deals that a seeded config deals, round by round."""
    rules = game_rules(config.game)
    dealer = config.dealer
    deals = []
    for round_no in range(1, config.rounds + 1):
        dealt = rules.deal(config, round_no, dealer)
        hands = tuple(tuple(h) for h in dealt.hands if h is not None)
        rest = tuple(dealt.aside) if dealt.aside is not None else ()
        if dealt.turned is not None:  # a turned-up card (Dix's trumps) comes first
            rest = (dealt.turned, *rest)
        deals.append(PresetDeal(hands, rest))
        dealer = rules.next_dealer(config, dealer)
    return tuple(deals)


@attrs.frozen
class DealSet:
    """The deals of a match: each is a Config minus the mode (seeded or preset)."""

    game: str
    players: int
    rounds: int
    configs: tuple[Config, ...]
    options: Options = attrs.field(default=(), converter=options_of)
    """The game's own settings, the same for every deal (a deal file's ``deals`` line)."""

    def with_mode(self, deal: int, mode: str) -> Config:
        return attrs.evolve(self.configs[deal - 1], mode=mode)

    def only(self, deal: int) -> OneDeal:
        """Deal number ``deal`` alone: what a cluster task is sent, never the whole set."""
        return OneDeal(deal, self.configs[deal - 1])


@attrs.frozen
class OneDeal:
    """One deal of a match, played where the rest must stay unknown (a Ray worker)."""

    number: int
    config: Config

    def with_mode(self, deal: int, mode: str) -> Config:
        if deal != self.number:
            raise MatchError(f"deal {deal} asked of a task sent deal {self.number} only")
        return attrs.evolve(self.config, mode=mode)


def seeded_deals(game: str, mode: str, players: int, rounds: int, seed: int,
                 count: int, options: Options | Mapping[str, Option] = ()) -> DealSet:
    rules = game_rules(game)
    configs = []
    for d in range(1, count + 1):
        config = Config(game=game, mode=mode, players=players, rounds=rounds,
                        seed=deal_seed(seed, d), options=options)
        rules.validate(config)
        configs.append(config)
    return DealSet(game, players, rounds, tuple(configs), options)


DEAL_FILE_HEAD = "# xactika deal file (spec/MATCH.md): one deal per line"


def format_deal_file(deals: DealSet) -> str:
    """Every deal as preset cards, so another run (or another program) plays the same."""
    lines = [
        DEAL_FILE_HEAD,
        "# deal N: rounds split by ';', hands by '/', cards by ','; '|' then the undealt rest",
        f"deals game={deals.game} players={deals.players} rounds={deals.rounds}"
        + "".join(f" {key}={value}" for key, value in deals.options),
    ]
    for i, config in enumerate(deals.configs, 1):
        presets = config.deals if config.deals is not None else materialize(config)
        lines.append(f"deal {i} {format_deals(presets)}")
    return "".join(line + "\n" for line in lines)


def parse_deal_file(text: str, source: str = "deal file", mode: str | None = None) -> DealSet:
    """Read a deal file back; errors name the file and line."""
    head: dict[str, str] | None = None
    configs: list[Config] = []
    rules: TrickGame | None = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source} line {lineno}"
        words = line.split()
        if head is None:
            if words[0] != "deals":
                raise MatchError(
                    f"{where}: expected 'deals game=G players=N rounds=R' before any deal"
                )
            head = {}
            for word in words[1:]:
                key, eq, value = word.partition("=")
                if not eq or key in head:
                    raise MatchError(f"{where}: bad field {word!r}: expected game=, players=, "
                                     "rounds= and the game's own options, once each")
                head[key] = value
            missing = [k for k in ("game", "players", "rounds") if k not in head]
            if missing:
                raise MatchError(f"{where}: the deals line lacks {missing[0]}=")
            try:
                rules = game_rules(head["game"])
                players, rounds = int(head["players"]), int(head["rounds"])
            except XactikaError as exc:
                raise MatchError(f"{where}: {exc}") from None
            except ValueError:
                raise MatchError(f"{where}: players= and rounds= must be whole numbers") from None
            try:
                options = _deal_file_options(head, rules)
            except ParseError as exc:
                raise MatchError(f"{where}: {exc}") from None
            continue
        assert rules is not None
        if words[0] != "deal" or len(words) != 3:
            raise MatchError(f"{where}: expected 'deal N CARDS', not {line[:40]!r}")
        if words[1] != str(len(configs) + 1):
            raise MatchError(f"{where}: expected deal {len(configs) + 1}, not deal {words[1]}")
        try:
            presets = parse_deals(words[2], rules)
            if len(presets) != rounds:
                raise ConfigError(f"deal has {len(presets)} rounds, expected {rounds}")
            config = Config(game=rules.name, mode=mode or rules.modes[-1], players=players,
                            rounds=rounds, deals=presets, options=options)
            rules.validate(config)
        except (ParseError, ConfigError) as exc:
            raise MatchError(f"{where}: {exc}") from None
        configs.append(config)
    if head is None or not configs:
        raise MatchError(f"{source}: no deals: expected a 'deals ...' line and 'deal N' lines")
    return DealSet(head["game"], int(head["players"]), int(head["rounds"]), tuple(configs),
                   options)


def _deal_file_options(head: dict[str, str], rules: TrickGame) -> Options:
    """The game's own options on a deal file's ``deals`` line, read as their types."""
    found: dict[str, Option] = {}
    for key, text in head.items():
        if key in ("game", "players", "rounds"):
            continue
        kind = rules.option_types.get(key)
        if kind is None:
            fields = ", ".join(f"{k}=" for k in ("game", "players", "rounds",
                                                  *rules.option_types))
            raise ParseError(f"bad field {key}=: {rules.name} has no such option (expected "
                             f"{fields})")
        if kind is int and not text.isdigit():
            raise ParseError(f"{key}= must be a whole number, not {text[:20]!r}")
        found[key] = int(text) if kind is int else text
    return options_of(found)


def deal_notes(bots: Sequence[BotSpec], plan: Sequence[GameSpec], seed: int | None) -> list[str]:
    """What the results table must say about how secret the deals were (spec/MATCH.md)."""
    notes = []
    duplicate = sum(1 for g in plan if g.deal == 1) > 1
    kept = [b.name for b in bots if not b.restart]
    if duplicate and kept:
        notes.append(
            f"not independent: restart=off kept the processes of {', '.join(kept)} between "
            "the games of a deal, so a bot could remember one seating's cards in the next: "
            "the duplicate games were not independent"
        )
    if seed is not None and seed < 2**GUESSABLE_SEED_BITS:
        notes.append(
            f"guessable deals: --seed {seed} is under 2^{GUESSABLE_SEED_BITS}, and a bot that "
            "finds the seed knows every hand; between adversaries leave --seed out "
            f"({MATCH_SEED_BITS} secret random bits)"
        )
    return notes


# --------------------------------------------------------------------------- schedule


def lineups(bots: int, seats: int, gauntlet: bool = False) -> list[tuple[int, ...]]:
    """Who sits at the table, before rotation (bot indices, one per seat).

    As many bots as seats or fewer: one table, the bots repeated in order to fill the
    seats. More bots than seats: every combination of ``seats`` bots (a round robin), or
    with ``gauntlet`` bot 0 with every combination of the others.
    """
    if bots < 1:
        raise MatchError("a match needs at least one bot")
    if bots <= seats:
        return [tuple(i % bots for i in range(seats))]
    if gauntlet:
        return [(0, *c) for c in itertools.combinations(range(1, bots), seats - 1)]
    return list(itertools.combinations(range(bots), seats))


def rotations(lineup: Sequence[int]) -> list[tuple[int, ...]]:
    """The distinct cyclic seatings of a lineup: rotation r puts lineup[(s - r) % n] in s."""
    n = len(lineup)
    seen: list[tuple[int, ...]] = []
    for r in range(n):
        seating = tuple(lineup[(s - r) % n] for s in range(n))
        if seating not in seen:
            seen.append(seating)
    return seen


@attrs.frozen
class GameSpec:
    """One scheduled game: which deal, which seating (bot index per seat)."""

    index: int  # 1-based, in schedule order
    deal: int  # 1-based
    table: int
    rotation: int
    seats: tuple[int, ...]

    @property
    def id(self) -> str:
        return f"d{self.deal:05d}-t{self.table}-r{self.rotation}"


def schedule(bots: int, seats: int, deals: int, gauntlet: bool = False) -> list[GameSpec]:
    """Every game of a match, deal by deal, so deals complete in order."""
    plan = [(t, r, seating) for t, lineup in enumerate(lineups(bots, seats, gauntlet))
            for r, seating in enumerate(rotations(lineup))]
    out: list[GameSpec] = []
    for d in range(1, deals + 1):
        for t, r, seating in plan:
            out.append(GameSpec(len(out) + 1, d, t, r, seating))
    return out


# --------------------------------------------------------------------------- results


@attrs.frozen
class Fault:
    seat: int
    reason: str
    detail: str = ""

    def header(self) -> str:
        detail = " ".join(self.detail.split())
        return f"{self.seat} {self.reason}" + (f": {detail}" if detail else "")

    @classmethod
    def parse(cls, text: str) -> Fault:
        head, _, detail = text.partition(": ")
        words = head.split()
        if len(words) != 2 or not words[0].isdigit() or words[1] not in REASONS:
            raise MatchError(f"bad fault header {text!r}: expected 'SEAT REASON: detail'")
        return cls(int(words[0]), words[1], detail)


@attrs.frozen
class SeatResult:
    """What a seat's game counts for under the rule in spec/MATCH.md."""

    points: float  # per hand
    win: float  # share of the win: 1/w for w winners, 0 for a loser or a forfeit
    rank: float  # 1 = best; ties share the mean place
    forfeit: bool


@attrs.frozen
class Reveal:
    """A game's seed commitment, opened: withheld from the bots until the match is over."""

    commit: str
    seed: int
    nonce: str

    @classmethod
    def of(cls, config: Config) -> Reveal | None:
        if config.commit is None or config.seed is None or config.nonce is None:
            return None
        return cls(config.commit, config.seed, config.nonce)

    def to_dict(self, game: GameSpec) -> dict[str, Any]:
        """The seed as a string: JSON readers other than Python's round 256-bit numbers."""
        return {"game": game.id, "commit": self.commit, "seed": str(self.seed),
                "nonce": self.nonce}


@attrs.frozen
class GameResult:
    game: GameSpec
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    hands: int
    faults: tuple[Fault, ...]
    low_wins: bool
    reveal: Reveal | None = None

    @property
    def termination(self) -> str:
        return self.faults[0].reason if self.faults else "normal"

    def seat_results(self) -> list[SeatResult]:
        return score_seats(self.totals, self.winners, self.hands, self.faults, self.low_wins)


def score_seats(totals: Sequence[int], winners: Sequence[int], hands: int,
                faults: Iterable[Fault], low_wins: bool) -> list[SeatResult]:
    """The counting rule: faulting seats forfeit, everyone else keeps their result.

    A forfeiting seat wins nothing, ranks below every other seat and is charged the
    worst total at the table; the win goes to the rules' winners that did not forfeit,
    or, if they all did, to the best total among the rest.
    """
    n = len(totals)
    out_seats = {f.seat for f in faults if f.reason not in NON_FORFEIT}
    worst = max(totals) if low_wins else min(totals)
    charged = [worst if s in out_seats else totals[s] for s in range(n)]
    keep = [s for s in winners if s not in out_seats]
    rest = [s for s in range(n) if s not in out_seats]
    if not keep and rest:
        best = (min if low_wins else max)(totals[s] for s in rest)
        keep = [s for s in rest if totals[s] == best]
    # rank: non-forfeiting seats by their totals, winners on top; forfeits share the bottom
    key = [0.0] * n
    sign = -1 if low_wins else 1
    for s in range(n):
        if s in out_seats:
            key[s] = -math.inf
        elif s in keep:
            key[s] = math.inf
        else:
            key[s] = sign * totals[s]
    ranks = mean_rank(key)
    return [
        SeatResult(
            points=charged[s] / hands if hands else 0.0,
            win=1 / len(keep) if s in keep else 0.0,
            rank=ranks[s],
            forfeit=s in out_seats,
        )
        for s in range(n)
    ]


def result_from_record(record: Record, game: GameSpec) -> GameResult:
    """A finished game's result, read back from its record (for --resume)."""
    over = record.events[-1]
    if not isinstance(over, GameOver):
        raise MatchError(f"record of game {game.id} does not end with game-over")
    hands = sum(1 for e in record.events if isinstance(e, RoundScored))
    faults = tuple(Fault.parse(v) for k, v in record.headers if k == "fault")
    started = record.events[0]
    reveal = Reveal.of(started.config) if isinstance(started, GameStarted) else None
    return GameResult(game, over.totals, over.winners, hands, faults,
                      record.header("mode") == "lose", reveal)


# --------------------------------------------------------------------------- summary


@attrs.frozen
class BotSummary:
    name: str
    games: int
    faults: int
    forfeits: int
    points: Estimate
    win: Estimate
    rank: Estimate


@attrs.frozen
class PairSummary:
    a: str
    b: str
    points: Estimate
    win: Estimate


@attrs.frozen
class Summary:
    deals: int  # complete deals counted
    games: int  # games counted
    uncounted: int  # finished games of incomplete deals
    bots: tuple[BotSummary, ...]
    pairs: tuple[PairSummary, ...]
    head_to_head: HeadToHead | None = None  # two bots: the cutechess score line
    ratings: tuple[Rating, ...] = ()  # three or more bots: Plackett-Luce (openskill)

    def to_dict(self) -> dict[str, Any]:
        return {
            "deals": self.deals,
            "games": self.games,
            "uncounted_games": self.uncounted,
            "bots": [
                {"name": b.name, "games": b.games, "faults": b.faults, "forfeits": b.forfeits,
                 "points_per_hand": b.points.as_dict(), "win_share": b.win.as_dict(),
                 "mean_rank": b.rank.as_dict()}
                for b in self.bots
            ],
            "pairs": [
                {"a": p.a, "b": p.b, "points_per_hand": p.points.as_dict(),
                 "win_share": p.win.as_dict()}
                for p in self.pairs
            ],
            "head_to_head": None if self.head_to_head is None else self.head_to_head.as_dict(),
            "ratings": [r.as_dict() for r in self.ratings],
        }


def complete_deals(results: Mapping[int, GameResult], plan: Sequence[GameSpec]) -> list[int]:
    """Deals whose every scheduled game has a result, in order."""
    need: dict[int, int] = {}
    have: dict[int, int] = {}
    for g in plan:
        need[g.deal] = need.get(g.deal, 0) + 1
        if g.index in results:
            have[g.deal] = have.get(g.deal, 0) + 1
    return [d for d in sorted(need) if have.get(d, 0) == need[d]]


def bot_wins(game: GameSpec, result: GameResult, bots: int) -> list[float]:
    """Each bot's share of one game's win: the sum over its seats (1.0 if it won alone).

    A bot, not a seat, is what a match measures: a bot in 2 of 4 seats that wins every
    game has a win share of 1, not the 0.5 a mean over its seats would say.
    """
    wins = [0.0] * bots
    for seat, sr in enumerate(result.seat_results()):
        wins[game.seats[seat]] += sr.win
    return wins


def per_deal(results: Mapping[int, GameResult], plan: Sequence[GameSpec], bots: int,
             deals: Sequence[int]) -> dict[str, list[list[float]]]:
    """For each measure, per bot, its mean on each counted deal.

    Points and rank are means over the bot's seats; the win share is the mean over the
    deal's games of the bot's share of each game's win (:func:`bot_wins`).
    """
    wanted = set(deals)
    sums = {m: [[0.0] * len(deals) for _ in range(bots)] for m in ("points", "win", "rank")}
    counts = [[0] * len(deals) for _ in range(bots)]
    games = [[0] * len(deals) for _ in range(bots)]
    pos = {d: i for i, d in enumerate(deals)}
    for g in plan:
        if g.deal not in wanted:
            continue
        res = results[g.index]
        i = pos[g.deal]
        for seat, sr in enumerate(res.seat_results()):
            b = g.seats[seat]
            sums["points"][b][i] += sr.points
            sums["rank"][b][i] += sr.rank
            counts[b][i] += 1
        for b, win in enumerate(bot_wins(g, res, bots)):
            if b in g.seats:
                sums["win"][b][i] += win
                games[b][i] += 1
    over = {"points": counts, "rank": counts, "win": games}
    return {
        m: [[v / over[m][b][i] if over[m][b][i] else math.nan for i, v in enumerate(row)]
            for b, row in enumerate(rows)]
        for m, rows in sums.items()
    }


def summarize(results: Mapping[int, GameResult], plan: Sequence[GameSpec],
              names: Sequence[str], upto: int | None = None) -> Summary:
    """The final table: every measure per bot, and paired differences, over whole deals.

    ``upto`` limits the count to deals 1..upto (a sequential test's stopping point).
    """
    deals = [d for d in complete_deals(results, plan) if upto is None or d <= upto]
    data = per_deal(results, plan, len(names), deals)
    wanted = set(deals)
    games = [g for g in plan if g.deal in wanted]
    shares = [bot_wins(g, results[g.index], len(names)) for g in games]
    bots = []
    for b, name in enumerate(names):
        played = faults = forfeits = 0
        won = 0.0
        for g, share in zip(games, shares, strict=True):
            if b not in g.seats:
                continue
            played += 1  # games, as the header counts them; a bot in two seats plays once
            won += share[b]
            res = results[g.index]
            for seat, bot in enumerate(g.seats):
                if bot != b:
                    continue
                faults += sum(1 for f in res.faults if f.seat == seat)
                forfeits += any(f.seat == seat and f.reason not in NON_FORFEIT
                                for f in res.faults)
        seats = len(plan[0].seats) if plan else 1
        bots.append(BotSummary(name, played, faults, forfeits, mean_ci(data["points"][b]),
                               wilson(won, played), mean_ci(data["rank"][b]).clip(1, seats)))
    pairs = [
        PairSummary(names[a], names[b], paired_diff(data["points"][a], data["points"][b]),
                    paired_diff(data["win"][a], data["win"][b]).clip(-1, 1))
        for a, b in itertools.combinations(range(len(names)), 2)
    ]
    finished = sum(1 for g in plan if g.index in results)
    head = ratings = None
    if len(names) == 2:
        # A's score in each game (1 a win, 1/2 a draw), kept by deal: the games of a deal
        # are paired, so the interval and LOS are read on deals (spec/MATCH.md)
        head = HeadToHead.from_games(names[0], names[1], [
            (g.deal, 1.0 if s[0] > s[1] else 0.0 if s[0] < s[1] else 0.5)
            for g, s in zip(games, shares, strict=True)])
    elif len(names) > 2 and games:
        ratings = tuple(plackett_luce(names, (_places(g, results[g.index]) for g in games)))
    return Summary(len(deals), len(games), finished - len(games), tuple(bots), tuple(pairs),
                   head, ratings or ())


def _places(game: GameSpec, result: GameResult) -> list[tuple[int, float]]:
    """Each bot at the table with its place: the best of its seats' ranks."""
    best: dict[int, float] = {}
    for seat, sr in enumerate(result.seat_results()):
        bot = game.seats[seat]
        best[bot] = min(best.get(bot, math.inf), sr.rank)
    return sorted(best.items())


def deal_differences(results: Mapping[int, GameResult], plan: Sequence[GameSpec], bots: int,
                     a: int, b: int) -> list[float]:
    """Points-per-hand differences a - b on the complete deals 1..k with no gap."""
    done = complete_deals(results, plan)
    prefix = []
    for want, d in enumerate(done, 1):
        if d != want:
            break
        prefix.append(d)
    data = per_deal(results, plan, bots, prefix)["points"]
    return [x - y for x, y in zip(data[a], data[b], strict=True)]
