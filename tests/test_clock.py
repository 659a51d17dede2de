"""A person's time bank (protocol/net/clock.py): BASE to start, INC after each move."""

from __future__ import annotations

import pytest

from xactika.protocol.net.clock import RECLAIM_MS, Bank, Clock, parse_clock


@pytest.mark.parametrize(("text", "clock"), [
    ("60+5", Clock(60_000, 5_000)), ("300", Clock(300_000, 0)),
    ("90.5+2", Clock(90_500, 2_000)), (" 1+0 ", Clock(1_000, 0)),
])
def test_parse(text: str, clock: Clock) -> None:
    assert parse_clock(text) == clock
    assert parse_clock(clock.text()) == clock  # the text reads back


@pytest.mark.parametrize("text", ["none", "off", "NONE"])
def test_no_clock(text: str) -> None:
    assert parse_clock(text) is None


@pytest.mark.parametrize("text", ["", "+5", "abc", "60+x", "-1+0", "60+-1", "1e9", "5+4000"])
def test_bad_clocks_say_the_form(text: str) -> None:
    with pytest.raises(ValueError, match="bad clock"):
        parse_clock(text)


def test_a_move_costs_its_time_and_earns_the_increment() -> None:
    bank = Bank(Clock(10_000, 2_000))
    assert bank.left() == 10_000
    assert bank.spend(3_000)
    assert bank.left() == 9_000
    assert bank.spend(8_999)
    assert bank.left() == 2_001


def test_running_out_leaves_zero_and_no_increment() -> None:
    bank = Bank(Clock(5_000, 2_000))
    assert not bank.spend(5_000)
    assert bank.left() == 0
    assert not bank.spend(1)
    assert bank.left() == 0


def test_a_drop_costs_time_but_earns_nothing() -> None:
    bank = Bank(Clock(5_000, 2_000))
    assert bank.spend(1_000, moved=False)
    assert bank.left() == 4_000


def test_a_bank_resumes_from_what_was_saved() -> None:
    clock = Clock(60_000, 5_000)
    first = Bank(clock)
    first.spend(12_345)
    again = Bank(clock, first.ms)  # what a journal keeps: the clock and the ms left
    assert again.left() == first.left() == 52_655
    again.spend(655)
    assert again.left() == 57_000


def test_a_reclaimed_seat_is_not_out_of_time_at_once() -> None:
    bank = Bank(Clock(600_000, 0), 0)
    bank.refill()
    assert bank.left() == RECLAIM_MS
    short = Bank(Clock(5_000, 0), 0)
    short.refill()
    assert short.left() == 5_000  # never more than the base
    big_inc = Bank(Clock(5_000, 40_000), 0)
    big_inc.refill()
    assert big_inc.left() == 40_000
    kept = Bank(Clock(600_000, 0), 200_000)
    kept.refill()
    assert kept.left() == 200_000  # a bank that was not spent is kept
