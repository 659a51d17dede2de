"""Issue 45: people's Glicko-2 (checked against Glickman's worked example), a table's
places as pairwise results, bots at half weight, and ratings kept in the site's database
on SQLite and PostgreSQL: once per table, recomputable, on the leaderboard when sure."""

from __future__ import annotations

from pathlib import Path

import pytest

from xactika.frontends.accounts import glicko2, identity, ratings
from xactika.frontends.accounts.glicko2 import Rating, Result, update
from xactika.frontends.accounts.store import Site


def test_glickmans_example() -> None:
    """"Example of the Glicko-2 system" (Glickman 2013), with its τ = 0.5."""
    after = update(Rating(1500, 200, 0.06), [Result(Rating(1400, 30), 1),
                                            Result(Rating(1550, 100), 0),
                                            Result(Rating(1700, 300), 0)], tau=0.5)
    # the paper rounds its steps: 1464.06, 151.52, 0.05999
    assert after.rating == pytest.approx(1464.06, abs=0.02)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.vol == pytest.approx(0.05999, abs=0.00001)


def test_lichess_start_and_the_question_mark() -> None:
    start = Rating()
    assert (start.rating, start.rd, start.vol) == (1500, 500, 0.09) and glicko2.TAU == 0.75
    assert start.shown() == "1500?" and Rating(1500, 109.9).shown() == "1500"
    assert Rating(1600, 110).provisional


def test_no_game_widens_the_deviation_up_to_the_start() -> None:
    assert update(Rating(1500, 100, 0.09), []).rd > 100
    assert update(Rating(1500, 499.9, 0.09), []).rd == 500


def test_places_as_pairwise_results() -> None:
    assert glicko2.pairwise([2, 1, 3, 2], 0) == [(1, 0.0), (2, 1.0), (3, 0.5)]
    assert ratings.places([10, 30, 20], low_wins=False, out=()) == (3, 1, 2)
    assert ratings.places([10, 30, 20], low_wins=True, out=()) == (1, 3, 2)
    assert ratings.places([10, 30, 30], low_wins=False, out=[1]) == (2, 3, 1)
    assert ratings.places([5, 5, 1], low_wins=False, out=()) == (1, 1, 3)


def test_a_bot_moves_a_person_half_as_far() -> None:
    start = [Rating(), Rating()]
    people = glicko2.rate_table(start, [1, 2], [False, False])
    vs_bot = glicko2.rate_table(start, [1, 2], [False, True])
    assert 1500 < vs_bot[0].rating < people[0].rating
    assert vs_bot[0].rd > people[0].rd  # less is learnt from a bot


def _site(tmp_path: Path, db: str | None) -> Site:
    return Site.open(tmp_path / "site", db=db, create=True)


def _game(n: int, names: tuple[str, ...], places: tuple[int, ...],
          people: tuple[bool, ...] | None = None) -> ratings.RatedGame:
    return ratings.RatedGame(f"table-{n}.log", "xactika", "bid", names,
                             people or (True,) * len(names), places,
                             tuple(10 * (len(names) - p) for p in places), float(n))


def test_a_table_is_rated_once_and_bots_are_kept_apart(tmp_path: Path,
                                                       arena_db: str | None) -> None:
    site = _site(tmp_path, arena_db)
    try:
        ann = identity.create(site.engine, "ann", "a long password")
        identity.create(site.engine, "bea", "another password")
        game = _game(1, ("ann", "bea", "strong-2"), (1, 2, 3), (True, True, False))
        assert ratings.apply(site.engine, game)
        assert not ratings.apply(site.engine, game)  # once, even asked again
        mine = ratings.person(site.engine, ann.id)
        (r,) = mine["ratings"]
        assert r["games"] == 1 and r["rating"] > 1500 and r["shown"].endswith("?")
        assert mine["games"][0]["seats"] == ["ann", "bea", "strong-2"]
        assert len(r["history"]) == 1
        # a person who is no account: the table is not rated
        assert not ratings.apply(site.engine, _game(2, ("ann", "zed"), (1, 2)))
        assert ratings.person(site.engine, ann.id)["ratings"][0]["games"] == 1
    finally:
        site.close()


def test_the_leaderboard_wants_thirty_games_and_a_small_deviation(
        tmp_path: Path, arena_db: str | None) -> None:
    site = _site(tmp_path, arena_db)
    try:
        four = ("ann", "bea", "cid", "dan")
        for name in four:
            identity.create(site.engine, name, "a long password")
        # ann best, then bea, cid; dan always last, so his deviation stays wide
        turns = [(1, 2, 3, 4), (2, 1, 4, 3), (1, 3, 2, 4), (3, 2, 1, 4)]
        for n in range(29):
            ratings.apply(site.engine, _game(n, four, turns[n % 4]))
        assert ratings.leaderboard(site.engine, "xactika", "bid") == []
        ratings.apply(site.engine, _game(29, four, turns[29 % 4]))
        board = ratings.leaderboard(site.engine, "xactika", "bid")
        assert [b["name"] for b in board] == ["ann", "bea", "cid"]
        assert all(b["rd"] <= 75 and b["games"] == 30 for b in board)
        dan = identity.find(site.engine, "dan")
        assert dan is not None
        assert ratings.person(site.engine, dan.id)["ratings"][0]["rd"] > 75
        assert ratings.boards(site.engine) == [("xactika", "bid")]
        identity.set_disabled(site.engine, "bea")
        assert [b["name"] for b in ratings.leaderboard(site.engine, "xactika", "bid")] \
            == ["ann", "cid"]
    finally:
        site.close()


def test_the_same_games_again_give_the_same_ratings() -> None:
    a = glicko2.rate_table([Rating(), Rating(1600, 80, 0.06)], [2, 1], [False, False])
    b = glicko2.rate_table([Rating(), Rating(1600, 80, 0.06)], [2, 1], [False, False])
    assert a == b and a[0].rating < 1500 < a[1].rating
