"""Issue 42: the arena's batch rating fit (order-independent, faults counted as ``match``
counts them) and its line-up choice (owners apart, co-seatings even, qualifying first)."""

from __future__ import annotations

import itertools
import random
import statistics
from fractions import Fraction

import attrs

from xactika.frontends.arena.lineup import Candidate, choose, pair
from xactika.frontends.arena.ratings import compare_table, fit
from xactika.frontends.arena.standings import Counted, LadderInfo, ladder_table, repeats
from xactika.frontends.match.tournament import Fault

INFO = LadderInfo("main", "xactika", "bid", 3, 1)


def _game(set_id: int, rotation: int, seats: tuple[str, ...], totals: tuple[int, ...],
          faults: tuple[Fault, ...] = ()) -> Counted:
    best = max(totals)
    return Counted("main", set_id, rotation, seats, False, frozenset(), totals,
                   tuple(i for i, t in enumerate(totals) if t == best), 1, faults, False)


def _season(seed: int) -> list[Counted]:
    """Strength a > b > c, noisy: a set is three rotations of one line-up."""
    rng = random.Random(seed)
    skill = {"a": 3.0, "b": 2.0, "c": 1.0}
    out = []
    for s in range(1, 41):
        lineup = ("a", "b", "c")
        for r in range(3):
            seats = lineup[r:] + lineup[:r]
            out.append(_game(s, r, seats, tuple(round(10 * (skill[n] + rng.gauss(0, 1.5)))
                                                for n in seats)))
    return out


def test_the_fit_does_not_depend_on_the_order_of_games() -> None:
    games = _season(1)
    first = ladder_table(INFO, games)
    for seed in range(5):
        shuffled = list(games)
        random.Random(seed).shuffle(shuffled)
        assert ladder_table(INFO, shuffled) == first
    order = [e["name"] for e in first["entrants"]]
    assert order == ["a", "b", "c"]
    a, _, c = first["entrants"]
    assert a["low"] > c["high"]  # the intervals part the strongest from the weakest


def test_a_half_played_set_counts_nothing() -> None:
    games = _season(2)
    cut = ladder_table(INFO, games[:-1])  # the last set lacks its third rotation
    assert cut["sets"] == 39 and cut["games"] == 117
    assert cut == ladder_table(INFO, games[:-3])


def test_a_faulting_seat_forfeits_as_in_match() -> None:
    # b has the best total but crashed: it ranks below both others, as match counts it
    points = {"a": 5, "b": 9, "c": 1}
    games = []
    for s in range(1, 4):
        for r in range(3):
            seats = ("a", "b", "c")[r:] + ("a", "b", "c")[:r]
            games.append(_game(s, r, seats, tuple(points[n] for n in seats),
                               (Fault(seats.index("b"), "crash", "gone"),)))
    table = ladder_table(INFO, games)
    by = {e["name"]: e for e in table["entrants"]}
    assert by["b"]["faults"] == by["b"]["forfeits"] == 9  # a fault per game
    assert by["a"]["faults"] == by["c"]["faults"] == 0
    assert [e["name"] for e in table["entrants"]] == ["a", "c", "b"]


def test_few_games_are_provisional_and_many_are_not() -> None:
    few = ladder_table(INFO, _season(3)[:6])
    assert {e["status"] for e in few["entrants"]} == {"qualifying"}  # no qualifying sets
    wins: dict[tuple[str, str], Fraction] = {}
    for _ in range(3):
        compare_table(["x", "y"], [1, 2], wins)
    assert all(f.provisional for f in fit([], [wins]))
    wins = {("x", "y"): Fraction(2000), ("y", "x"): Fraction(1000)}
    x, y = fit([], [wins])
    assert not x.provisional and x.mu > y.mu
    assert abs((x.mu - 1500) + (y.mu - 1500)) < 1e-6 * 1500  # the prior centres them


def test_line_ups_keep_owners_apart_and_co_seatings_even() -> None:
    people = [Candidate(i, f"e{i}", f"o{i}", False, 50.0, 0, 2) for i in range(7)]
    people.append(Candidate(7, "e7", "o0", False, 50.0, 0, 2))  # o0's second entrant
    unsure = [*people[:7], attrs.evolve(people[7], sigma=500.0)]
    first = choose(unsure, 3, 2, {})
    assert first is not None and first.lineup[0] == 7  # the least certain first
    together: dict[tuple[int, int], int] = {}
    for _ in range(28):
        choice = choose(people, 3, 2, together)
        assert choice is not None and not choice.qualifying
        owners = [people[i].owner for i in choice.lineup]
        assert len(set(owners)) == 3
        # the sets under way, as the scheduler counts them
        people = [attrs.evolve(c, sets=c.sets + (c.id in choice.lineup)) for c in people]
        for a, b in itertools.combinations(choice.lineup, 2):
            together[pair(a, b)] = together.get(pair(a, b), 0) + 1
    counts = [together.get(pair(a, b), 0) for a, b in itertools.combinations(range(8), 2)
              if people[a].owner != people[b].owner]
    assert max(counts) - min(counts) <= 2, together
    assert together.get((0, 7), 0) == 0
    sets = [c.sets for c in people]
    assert max(sets) - min(sets) <= 1


def test_a_new_entrant_qualifies_against_the_house_first() -> None:
    house = [Candidate(10 + i, f"house-{i}", f"house-{i}", True, 50.0, 0, 0) for i in range(2)]
    old = [Candidate(i, f"e{i}", f"o{i}", False, 50.0, 9, 2) for i in range(3)]
    new = Candidate(5, "new", "o5", False, 1e9, 0, 1)
    choice = choose([*house, *old, new], 3, 2, {})
    assert choice is not None and choice.qualifying and choice.lineup == (5, 10, 11)
    done = Candidate(5, "new", "o5", False, 1e9, 0, 2)
    choice = choose([*house, *old, done], 3, 2, {})
    assert choice is not None and not choice.qualifying and 5 in choice.lineup
    assert not set(choice.lineup) & {10, 11}  # enough entrants: the house stays out


def test_repeats_count_co_seatings_beyond_the_first() -> None:
    games = [_game(1, 0, ("a", "b", "c"), (1, 2, 3)), _game(1, 1, ("c", "a", "b"), (1, 2, 3)),
             _game(2, 0, ("a", "b", "d"), (1, 2, 3))]
    assert repeats(games) == 1  # a-b sat together in two sets
    housed = [attrs.evolve(g, house=frozenset({"a", "b"})) for g in games]
    assert repeats(housed) == 0  # two house bots meet in every qualifying set


def test_a_set_compares_the_deal_not_its_seatings() -> None:
    """The cards decide most games; a small edge shows only over a deal's rotations.

    Each entrant holds each hand of a set's deal once, so summing its ranks over the set
    cancels the cards (duplicate scoring): a slightly better bot is told apart in few
    sets, where counting each rotation as its own table leaves it in the noise.
    """
    rng = random.Random(7)
    skill = {"a": 2.0, "b": 0.0, "c": -2.0}
    games = []
    for s in range(1, 121):
        hands = [rng.gauss(0, 10) for _ in range(3)]  # the deal: one hand per seat
        for r in range(3):
            seats = ("a", "b", "c")[r:] + ("a", "b", "c")[:r]
            games.append(_game(s, r, seats, tuple(round(hands[i] + skill[n] + rng.gauss(0, 1))
                                                  for i, n in enumerate(seats))))
    a, b, c = ladder_table(INFO, games)["entrants"]
    assert [a["name"], b["name"], c["name"]] == ["a", "b", "c"]
    assert a["low"] > b["high"] and b["low"] > c["high"]


def test_the_standings_say_each_count_in_its_number() -> None:
    from xactika.frontends.arena.standings import format_standings, standings
    from xactika.frontends.i18n import using

    one = [_game(1, r, ("a", "b", "c")[r:] + ("a", "b", "c")[:r], (3, 2, 1)) for r in range(3)]
    text = format_standings(standings([INFO], one), False).splitlines()[0]
    assert text == ("ladder main: xactika bid, 3 players, 1 round; 1 set, 3 games, "
                    "0 repeated co-seatings")
    with using("de"):
        text = format_standings(standings([INFO], one), False).splitlines()[0]
    assert text == ("Rangliste main: xactika bid, 3 Spieler, 1 Runde; 1 Satz, 3 Spiele, "
                    "0 wiederholte Tischnachbarschaften")


def test_an_entrant_told_apart_from_all_sits_out_more() -> None:
    """Five entrants, four seats: the one whose interval overlaps no one's sits out most
    sets, so the sets go where the standings are still unsure; co-seatings stay spread."""
    from xactika.frontends.arena.lineup import overlaps

    near = overlaps([("a", 1600.0, 30.0), ("b", 1590.0, 30.0), ("c", 1000.0, 30.0)])
    assert near["a"] == near["b"] > 0.9 and near["c"] < 1e-6
    people = [Candidate(i, f"e{i}", f"o{i}", False, 50.0, 0, 2, 0.0 if i == 4 else 1.0)
              for i in range(5)]
    together: dict[tuple[int, int], int] = {}
    for _ in range(40):
        choice = choose(people, 4, 2, together)
        assert choice is not None
        people = [attrs.evolve(c, sets=c.sets + (c.id in choice.lineup)) for c in people]
        for a, b in itertools.combinations(choice.lineup, 2):
            together[pair(a, b)] = together.get(pair(a, b), 0) + 1
    sets = [c.sets for c in people]
    assert sets[4] < min(sets[:4]) - 8, sets  # evenly, each would sit in 32 of 40
    assert min(together.values()) > 0  # it still meets everyone


def test_a_house_bots_few_games_do_not_widen_the_entrants_intervals() -> None:
    # three entrants with many sets among them; a house bot seen in two games only
    wins: dict[tuple[str, str], Fraction] = {}
    for winner, loser in itertools.permutations("abc", 2):
        wins[(winner, loser)] = Fraction(300 if winner < loser else 200)
    alone = {f.name: f for f in fit([], [wins])}
    wins[("a", "house")] = Fraction(2)
    with_house = {f.name: f for f in fit([], [wins], ["house"])}
    for name in "abc":
        assert abs(with_house[name].sigma - alone[name].sigma) < 0.02 * alone[name].sigma
        assert abs(with_house[name].mu - alone[name].mu) < 1.0
    assert with_house["house"].sigma > 5 * with_house["a"].sigma
    # levelled on every seat instead, the house bot's doubt would be everyone's
    levelled = {f.name: f for f in fit([], [wins])}
    assert levelled["b"].sigma > 1.5 * alone["b"].sigma


def test_the_intervals_say_how_much_the_ratings_vary_from_season_to_season() -> None:
    # seasons of a known world: five entrants, four seats, each set's places summed over
    # its four rotations, as compare_set sums them; over many seasons the spread of each
    # entrant's rating is what one season's interval says (the sets as clusters). With
    # each pair weighted 1/(seats-1), as before, the intervals said 1.7x the spread.
    rng = random.Random(7)
    skill = {"p": 0.5, "q": 0.2, "r": -0.3, "s": -1.2, "t": -1.2}
    names = sorted(skill)
    shown: dict[str, list[float]] = {n: [] for n in names}
    said: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(40):
        tables = []
        for _ in range(150):
            seated = rng.sample(names, 4)
            total = dict.fromkeys(seated, 0)
            for _ in range(4):
                perf = {n: skill[n] + rng.gauss(0, 1) for n in seated}
                for place, n in enumerate(sorted(seated, key=lambda n: -perf[n])):
                    total[n] += place
            table: dict[tuple[str, str], Fraction] = {}
            compare_table(seated, [total[n] for n in seated], table)
            tables.append(table)
        for f in fit(names, tables):
            shown[f.name].append(f.mu)
            said[f.name].append(f.sigma)
    for n in names:
        spread = statistics.stdev(shown[n])
        assert 0.75 < statistics.mean(said[n]) / spread < 1.33, (n, spread, said[n][:3])
