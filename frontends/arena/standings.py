"""The standings of each ladder, from the database or from the signed records alone.

Both sources become the same :class:`Counted` games, and one function makes the table
of them, so ``arena ratings --from-records`` prints what ``arena standings`` prints
whenever the database is true to the records (spec/ARENA.md, "Trust").
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from xactika.frontends.arena.ratings import Comparisons, Fit, compare_table, fit
from xactika.frontends.i18n import N_
from xactika.frontends.match.tournament import NON_FORFEIT, Fault, score_seats

QUALIFY_SETS = 2  # a new entrant's sets against the house bots before it is rated
# an entrant's status in the standings, and in the commands that change it
STATUS_WORDS = (N_("house"), N_("qualifying"), N_("provisional"), N_("rated"), N_("active"),
                N_("paused"), N_("retired"))


@attrs.frozen
class LadderInfo:
    name: str
    game: str
    mode: str
    players: int
    rounds: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "game": self.game, "mode": self.mode,
                "players": self.players, "rounds": self.rounds}


@attrs.frozen
class Counted:
    """One finished game as the ratings see it."""

    ladder: str
    set: int
    rotation: int
    seats: tuple[str, ...]  # entrant names by seat
    qualifying: bool
    house: frozenset[str]  # the house bots at the table
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    hands: int
    faults: tuple[Fault, ...]
    low_wins: bool

    def ranks(self) -> list[float]:
        return [sr.rank for sr in score_seats(self.totals, self.winners, self.hands,
                                              self.faults, self.low_wins)]


def complete(games: Iterable[Counted], players: int) -> list[Counted]:
    """The games of sets whose every rotation finished: a half-played deal counts nothing
    (the duplicate rule of ``match``: each deal in every seating or not at all)."""
    by_set: dict[int, list[Counted]] = {}
    for g in games:
        by_set.setdefault(g.set, []).append(g)
    out = []
    for number in sorted(by_set):
        found = sorted(by_set[number], key=lambda g: g.rotation)
        if len({g.rotation for g in found}) == players:
            out += found
    return out


def compare_set(games: Sequence[Counted], into: Comparisons) -> None:
    """One set's comparisons: each entrant's ranks summed over the deal's rotations.

    Every entrant held every hand of the deal once, so the sum cancels the cards' luck
    that one game's placing carries (duplicate scoring); the set is one table to
    compare, not one per rotation, whose results the same cards tie together.
    """
    total: dict[str, float] = {}
    for g in games:
        for name, rank in zip(g.seats, g.ranks(), strict=True):
            total[name] = total.get(name, 0.0) + rank
    names = sorted(total)
    compare_table(names, [total[n] for n in names], into)


def repeats(games: Sequence[Counted]) -> int:
    """Co-seatings beyond the first: over each pair, the sets they shared less one.

    Two house bots are not a pair: every qualifying set seats them together by design.
    """
    together: dict[tuple[str, str], int] = {}
    seen: set[int] = set()
    for g in games:
        if g.set in seen:
            continue
        seen.add(g.set)
        for pair in itertools.combinations(sorted(set(g.seats)), 2):
            if not set(pair) <= g.house:
                together[pair] = together.get(pair, 0) + 1
    return sum(c - 1 for c in together.values() if c > 1)


def ladder_table(info: LadderInfo, games: Iterable[Counted]) -> dict[str, Any]:
    """One ladder's standings as plain data (the JSON of ``arena standings --json``)."""
    counted = complete((g for g in games if g.ladder == info.name), info.players)
    tables: list[Comparisons] = []
    played: dict[str, int] = {}
    faults: dict[str, int] = {}
    forfeits: dict[str, int] = {}
    qualified: dict[str, set[int]] = {}
    house: set[str] = set()
    by_set: dict[int, list[Counted]] = {}
    for g in counted:
        by_set.setdefault(g.set, []).append(g)
    for number in sorted(by_set):
        tables.append({})
        compare_set(by_set[number], tables[-1])
    for g in counted:
        house |= g.house
        for seat, name in enumerate(g.seats):
            played[name] = played.get(name, 0) + 1
            mine = [f for f in g.faults if f.seat == seat]
            faults[name] = faults.get(name, 0) + len(mine)
            forfeits[name] = forfeits.get(name, 0) + any(f.reason not in NON_FORFEIT
                                                         for f in mine)
            if g.qualifying:
                qualified.setdefault(name, set()).add(g.set)
    fits = fit(played, tables, house)
    rows = sorted(fits, key=lambda f: (-f.mu, f.name))
    return {
        **info.to_dict(),
        "sets": len({g.set for g in counted}),
        "games": len(counted),
        "repeats": repeats(counted),
        "entrants": [_row(f, played[f.name], faults[f.name], forfeits[f.name],
                          f.name in house, len(qualified.get(f.name, ())))
                     for f in rows],
    }


def _row(f: Fit, games: int, faults: int, forfeits: int, house: bool,
         qualifying: int) -> dict[str, Any]:
    status = ("house" if house else "qualifying" if qualifying < QUALIFY_SETS
              else "provisional" if f.provisional else "rated")
    return {"name": f.name, "mu": f.mu, "sigma": f.sigma,
            "low": round(f.mu - 2 * f.sigma, 1), "high": round(f.mu + 2 * f.sigma, 1),
            "games": games, "faults": faults, "forfeits": forfeits, "status": status}


def standings(ladders: Sequence[LadderInfo], games: Sequence[Counted],
              only: str | None = None) -> dict[str, Any]:
    return {"ladders": [ladder_table(info, games) for info in ladders
                        if only is None or info.name == only]}


def ladder_facts(lad: dict[str, Any]) -> str:
    """A ladder's settings and counts, each word in its number ("1 round", "2 rounds")."""
    from xactika.frontends.i18n import _, ngettext

    counts = [ngettext("{n} player", "{n} players", lad["players"]).format(n=lad["players"]),
              ngettext("{n} round", "{n} rounds", lad["rounds"]).format(n=lad["rounds"]),
              ngettext("{n} set", "{n} sets", lad["sets"]).format(n=lad["sets"]),
              ngettext("{n} game", "{n} games", lad["games"]).format(n=lad["games"]),
              ngettext("{n} repeated co-seating", "{n} repeated co-seatings",
                       lad["repeats"]).format(n=lad["repeats"])]
    return _("{game} {mode}, {players}, {rounds}; {sets}, {games}, {repeats}").format(
        game=lad["game"], mode=lad["mode"], players=counts[0], rounds=counts[1],
        sets=counts[2], games=counts[3], repeats=counts[4])


def format_standings(data: dict[str, Any], as_json: bool) -> str:
    if as_json:
        return json.dumps(data, indent=2, sort_keys=True)
    from xactika.frontends.i18n import _

    lines: list[str] = []
    for lad in data["ladders"]:
        if lines:
            lines.append("")
        lines.append(_("ladder {name}: {facts}").format(name=lad["name"],
                                                        facts=ladder_facts(lad)))
        if not lad["entrants"]:
            lines.append("  " + _("no finished set yet"))
            continue
        entrant, rating, played, faults, status = (
            _("entrant"), _("rating"), _("games"), _("faults"), _("status"))
        width = max(len(entrant), *(len(e["name"]) for e in lad["entrants"]))
        lines.append(f"  {'#':>2}  {entrant:<{width}}  {rating:>16}  {played:>6}  "
                     f"{faults:>6}  {status}")
        for place, e in enumerate(lad["entrants"], 1):
            rating = f"{e['mu']:.1f} ± {2 * e['sigma']:.1f}"
            lines.append(f"  {place:>2}  {e['name']:<{width}}  {rating:>16}  "
                         f"{e['games']:>6}  {e['faults']:>6}  {_(e['status'])}")
    return "\n".join(lines) if lines else _("no ladders: add one with 'arena ladder add'")
