"""Issue 45: the daily deal's arithmetic and its store, on SQLite and PostgreSQL: the
day's seed committed once for every process, one play per deal, nothing revealed before
the close, matchpoints against the field and par, the share line."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from dailykit import TINY, Clock, daily_for, engine_for
from sqlalchemy.engine import Engine

from xactika.core.bots.agents import make_agent
from xactika.core.bots.cheater import play_with_cheaters
from xactika.frontends.arena import store
from xactika.frontends.daily import deals
from xactika.frontends.daily.par import par_scores
from xactika.frontends.daily.service import DailyError
from xactika.frontends.daily.store import daily_plays

NOON = dt.datetime(2026, 12, 2, 12, tzinfo=dt.UTC)
DAY = NOON.date()


@pytest.fixture(params=["sqlite", "postgres"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    url = None if request.param == "sqlite" else request.getfixturevalue("pg_cluster").database()
    made = engine_for(tmp_path, url)
    yield made
    made.dispose()


def test_a_days_deals_follow_from_its_seed_one_way() -> None:
    seeds = [deals.deal_seed(12345, k) for k in range(8)]
    assert len(set(seeds)) == 8 and all(0 <= s < 1 << 62 for s in seeds)
    assert seeds == [deals.deal_seed(12345, k) for k in range(8)]  # anyone recomputes them
    assert deals.deal_seed(12346, 0) != seeds[0]
    config = TINY.config(12345, 2)
    assert (config.seed, config.dealer, config.rounds) == (seeds[2], 2, 1)
    assert deals.number(dt.date(2026, 1, 1)) == 1 and deals.number(DAY) == 336
    assert deals.closes(DAY) == dt.datetime(2026, 12, 3, tzinfo=dt.UTC)
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        deals.parse_day("2026-13-01")
    with pytest.raises(ValueError, match="began on 2026-01-01"):
        deals.parse_day("2025-12-31")


def test_matchpoints_par_marks_and_the_share_line() -> None:
    assert deals.matchpoints(5, [3, 5, 7, 1]) == (1 + 0.5 + 0 + 1) / 4
    assert deals.matchpoints(5, []) is None
    plays = {"ann": [4.0, None, 2.0], "bob": [1.0, 3.0, 2.0]}
    par = [(3.0, 6.0), (3.0, 3.0), (5.0, 0.0)]
    field = [[*p, *(x[k] for x in plays.values() if x[k] is not None)]
             for k, p in enumerate(par)]
    ann, bob = deals.score_day(plays, field, par)
    # ann: deal 1 beats bob and strong par, loses to the all-seeing (2/3); deal 3 beats
    # the all-seeing, ties bob, loses to strong (1.5/3); deal 2 unplayed: 0
    assert ann.player == "ann" and ann.shares == (2 / 3, None, 0.5)
    assert ann.percent == round(100 * (2 / 3 + 0.5) / 3) == 39
    assert ann.marks == (1, None, -1) and bob.marks == (-1, 0, -1)
    line = deals.share_line(DAY, ann)
    assert line == "Xactika daily #336 39% \U0001F7E9\u2B1C\U0001F7E5"
    assert not re.search(r"\d", line.split("%")[1])  # no score, no card: marks only


def test_par_is_the_par_bots_score_in_the_persons_seat() -> None:
    strong, seeing = par_scores(TINY, 777, 1)
    config = TINY.config(777, 1)
    bots = [make_agent(TINY.par[0] if s == 0 else b, deals.bot_seed(777, 1, s), "xactika")
            for s, b in enumerate(TINY.agents())]
    _state, events = play_with_cheaters(config, bots)
    assert strong == events[-1].totals[0]  # type: ignore[attr-defined]
    assert isinstance(seeing, float)


def test_two_processes_share_one_committed_day(engine: Engine) -> None:
    clock = Clock(NOON)
    one, two = daily_for(engine, clock), daily_for(engine, clock)
    first = one.day()
    assert two.day() == first  # the second process reads the first's seed, never its own
    assert deals.committed("xactika", first.seed, first.nonce, first.commit)
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM daily_days")).scalar() == 1
    assert store.schema_version(engine) == store.SCHEMA_HEAD == "0005"
    with pytest.raises(DailyError, match="revealed at the close"):
        one.reveal(DAY)
    with pytest.raises(DailyError, match="revealed at the close"):
        one.par(DAY)
    with pytest.raises(DailyError, match="revealed at the close"):
        one.record(DAY, 0, "anyone")


def test_one_play_per_deal_and_the_scores_after_the_close(engine: Engine) -> None:
    clock = Clock(NOON)
    daily = daily_for(engine, clock)
    play, new = daily.begin(DAY, 0, "guest:a", "guest-aaaaaa")
    assert new and play.rated
    with pytest.raises(DailyError, match="finish deal 1 first"):
        daily.begin(DAY, 1, "guest:a", "guest-aaaaaa")
    assert daily.begin(DAY, 0, "guest:a", "guest-aaaaaa") == (play, False)
    daily.finish(play, 3.0, "record a")
    daily.finish(play, 9.0, "a second end")  # only the first end counts
    with pytest.raises(DailyError, match="first attempt counts"):
        daily.begin(DAY, 0, "guest:a", "guest-aaaaaa")
    other, _ = daily.begin(DAY, 0, "guest:b", "guest-bbbbbb")
    daily.finish(other, 1.0, "record b")
    begun, _ = daily.begin(DAY, 1, "guest:b", "guest-bbbbbb")  # begun before the close...
    clock.at = dt.datetime(2026, 12, 3, 1, tzinfo=dt.UTC)
    daily.finish(begun, 99.0, "record b2")  # ...finished after it, the seed public: unrated
    late, _ = daily.begin(DAY, 0, "guest:c", "guest-cccccc")  # after the close: unrated
    assert not late.rated
    daily.finish(late, 5.0, "record c")
    board, everyone = daily.scores(DAY)
    assert [s.player for s in board] == ["guest:a", "guest:b"]  # the late one is not on it
    assert set(everyone) == {"guest:a", "guest:b", "guest:c"}
    par = daily.par(DAY)
    assert len(par) == TINY.deals and daily.par(DAY) == par  # computed once, kept
    # the late one against everyone who played the deal (the rated too) and par
    assert everyone["guest:c"].shares[0] == deals.matchpoints(5.0, [*par[0], 3.0, 1.0])
    assert board[0].shares[0] == deals.matchpoints(3.0, [*par[0], 1.0])  # not against c
    assert board[1].points == (1.0, None, None) and everyone["guest:b"].points[1] == 99.0
    assert daily.record(DAY, 0, "guest-aaaaaa") == "record a"
    with engine.connect() as conn:
        points = conn.execute(sa.select(daily_plays.c.points).where(
            daily_plays.c.player == "guest:a")).scalar()
    assert points == 3.0


def test_days_to_come_and_days_nobody_opened_have_no_seed(engine: Engine) -> None:
    daily = daily_for(engine, Clock(NOON))
    with pytest.raises(DailyError, match="not open yet"):
        daily.day(DAY + dt.timedelta(days=1))
    with pytest.raises(DailyError, match="nobody opened"):
        daily.day(DAY - dt.timedelta(days=1))  # its seed would be made after the fact
    with pytest.raises(DailyError, match="deals 1 to 3"):
        daily.begin(DAY, 3, "guest:a", "x")
