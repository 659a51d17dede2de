"""The match runner's rules without processes: schedule, counting rule, deal files, options."""

from __future__ import annotations

import pytest

from xactika.core.engine.api import game_rules, start
from xactika.frontends.match.tournament import (
    Fault,
    MatchError,
    format_deal_file,
    lineups,
    parse_bot,
    parse_deal_file,
    rotations,
    schedule,
    score_seats,
    seeded_deals,
)


def test_every_bot_holds_every_seat_over_the_rotations() -> None:
    for bots, seats, gauntlet in [(2, 2, False), (2, 4, False), (3, 4, False), (4, 4, False),
                                  (3, 2, False), (5, 3, False), (5, 3, True)]:
        for lineup in lineups(bots, seats, gauntlet):
            seatings = rotations(lineup)
            for b in set(lineup):
                held = {s for seating in seatings for s, x in enumerate(seating) if x == b}
                assert held == set(range(seats))
            assert len(set(seatings)) == len(seatings)


def test_tables_fill_seats_or_go_round_robin() -> None:
    assert lineups(2, 4) == [(0, 1, 0, 1)]
    assert rotations((0, 1, 0, 1)) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert lineups(3, 2) == [(0, 1), (0, 2), (1, 2)]
    assert lineups(4, 3, gauntlet=True) == [(0, 1, 2), (0, 1, 3), (0, 2, 3)]
    assert lineups(2, 4, gauntlet=True) == lineups(2, 4)
    assert len(schedule(4, 2, 1, gauntlet=True)) == 6
    plan = schedule(3, 2, 2)
    assert len(plan) == 12 and [g.deal for g in plan] == [1] * 6 + [2] * 6
    assert plan[0].id == "d00001-t0-r0" and plan[-1].id == "d00002-t2-r1"
    with pytest.raises(MatchError):
        lineups(0, 2)


def test_counting_rule_forfeits_faulting_seats() -> None:
    # seat 1 had the best total but crashed: it forfeits, seat 0 and 2 share the win
    res = score_seats([5, 9, 5], [1], 8, [Fault(1, "crash")], low_wins=False)
    assert [r.win for r in res] == [0.5, 0.0, 0.5]
    assert [r.rank for r in res] == [1.5, 3.0, 1.5]
    assert res[1].points == 5 / 8 and res[1].forfeit
    # play to lose: the forfeit is charged the highest (worst) total
    res = score_seats([2, 1, 6], [1], 1, [Fault(0, "timeout")], low_wins=True)
    assert [r.points for r in res] == [6, 1, 6] and [r.win for r in res] == [0, 1, 0]
    # ignoring quit is noted but the result stands
    res = score_seats([3, 4], [1], 1, [Fault(1, "ignored-quit")], low_wins=False)
    assert [r.win for r in res] == [0.0, 1.0] and not res[1].forfeit
    # every seat forfeits: nobody wins, all share the places
    res = score_seats([3, 4], [1], 1, [Fault(0, "crash"), Fault(1, "flood")], low_wins=False)
    assert [r.win for r in res] == [0.0, 0.0] and [r.rank for r in res] == [1.5, 1.5]


def test_fault_headers_read_back() -> None:
    f = Fault(2, "timeout", "no answer\nwithin  0.5 s")
    assert Fault.parse(f.header()) == Fault(2, "timeout", "no answer within 0.5 s")
    with pytest.raises(MatchError, match="bad fault header"):
        Fault.parse("2 sleepy: zzz")


def test_deal_file_round_trip_and_errors() -> None:
    deals = seeded_deals("xactika", "bid", 3, 2, 42, 3)
    text = format_deal_file(deals)
    back = parse_deal_file(text, "d.txt", "bid")
    assert format_deal_file(back) == text
    assert [c.deals is not None for c in back.configs] == [True] * 3
    lines = text.splitlines()
    with pytest.raises(MatchError, match=r"d.txt line 4: expected deal 1, not deal 7"):
        parse_deal_file("\n".join([*lines[:3], lines[3].replace("deal 1", "deal 7")]), "d.txt")
    broken = lines[3][:-5] + "9999"
    with pytest.raises(MatchError, match=r"d.txt line 4: bad card"):
        parse_deal_file("\n".join([*lines[:3], broken]), "d.txt")
    with pytest.raises(MatchError, match="no deals"):
        parse_deal_file("# nothing\n", "d.txt")
    with pytest.raises(MatchError, match="line 1: expected 'deals game=G"):
        parse_deal_file("deal 1 x\n", "d.txt")


def test_a_games_options_travel_with_its_deals_and_settings() -> None:
    """Oh Hell's ``top`` reaches every deal, the deal file's ``deals`` line and
    match.json, so the same match can be played again and its records audit."""
    from xactika.frontends.match.game import MatchSettings
    from xactika.frontends.match.runner import build_parser, settings_from_args

    deals = seeded_deals("ohhell", "exact", 3, 3, 42, 2, {"top": 2})
    assert all(c.option("top") == 2 for c in deals.configs)
    text = format_deal_file(deals)
    assert "deals game=ohhell players=3 rounds=3 top=2\n" in text
    back = parse_deal_file(text, "d.txt", "exact")
    assert back.options == (("top", 2),) and format_deal_file(back) == text
    assert [len(h) for c in back.configs for h in c.deals[0].hands] == [1, 1, 1] * 2
    for bad, said in (("top=x", "top= must be a whole number"),
                      ("cards=3", "bad field cards=: ohhell has no such option")):
        with pytest.raises(MatchError, match=f"d.txt line 3: {said}"):
            parse_deal_file(text.replace("top=2", bad), "d.txt")

    def settings(*args: str) -> MatchSettings:
        return settings_from_args(build_parser().parse_args(
            ["--bot", "random", "--bot", "random", "name=r2", *args]))[0]

    given = settings("--game", "ohhell", "--players", "3", "--top", "2", "--hook", "none")
    assert given.options == (("hook", "none"), ("top", 2))
    assert MatchSettings.from_dict(given.to_dict()) == given
    with pytest.raises(MatchError, match="xactika takes no setting top"):
        settings("--top", "2")


def test_bot_options() -> None:
    bot = parse_bot(["name=me", "cmd=python3 'my bot.py' -v", "move=250ms", "startup=3"],
                    each=["move=1s", "margin=20ms"])
    assert bot.cmd == ("python3", "my bot.py", "-v")
    assert (bot.move, bot.startup, bot.margin, bot.time_ms) == (0.25, 3.0, 0.02, 250)
    assert bot.hard_limit == pytest.approx(0.52)
    builtin = parse_bot(["random"], builtins=["random"])
    assert builtin.name == "random" and builtin.cmd[-2:] == ("bot", "random")
    with pytest.raises(MatchError, match="bad bot name"):
        parse_bot(["name=has space", "cmd=x"])
    with pytest.raises(MatchError, match="is not a directory"):
        parse_bot(["cmd=x", "dir=/no/such/dir"])


@pytest.mark.parametrize(("game", "mode", "players", "rounds"),
                         [("xactika", "bid", 4, 3), ("xactika", "win", 10, 1),
                          ("dix", "draw", 2, 1), ("dix", "nodraw", 2, 1)])
def test_a_deal_file_deals_exactly_what_the_seed_dealt(game: str, mode: str, players: int,
                                                       rounds: int) -> None:
    seeded = seeded_deals(game, mode, players, rounds, 5, 2)
    preset = parse_deal_file(format_deal_file(seeded), "d.txt", mode)
    rules = game_rules(game)
    for a, b in zip(seeded.configs, preset.configs, strict=True):
        assert a.seed is not None and b.deals is not None and b.seed is None
        dealer = 0
        for round_no in range(1, rounds + 1):
            assert rules.deal(a, round_no, dealer) == rules.deal(b, round_no, dealer)
            dealer = rules.next_dealer(a, dealer)
        assert start(a)[1] == start(b)[1]
