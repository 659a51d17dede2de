"""The REPL teaches and fits: rules by topic, why tricks are won, round ends, Dix's own
texts, the tutorial, and every screen laid out to 60, 80 and 120 columns."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xactika.core import Config, start
from xactika.core.bots.agents import make_agent
from xactika.core.engine.api import RoundScored, Trick, TrickWon, game_rules, replay
from xactika.core.games.dix import DixCard, Drew, is_ten_trick, round_points
from xactika.core.games.xactika import Call, Card
from xactika.frontends.people import teach
from xactika.frontends.people.presentation import presentation
from xactika.frontends.repl import render
from xactika.frontends.repl.render import PLAIN, Style
from xactika.frontends.repl.shell import BOT, HUMAN, SeatSpec, Shell

COLOR = Style(color=True)


def session(game: str = "xactika", mode: str = "bid", players: int = 4, *, seed: int = 1,
            rounds: int = 1, width: int = 80, style: Style = PLAIN, names: str = "heuristic",
            tutorial: bool = False) -> Shell:
    config = Config(game=game, mode=mode, players=players, rounds=rounds, seed=seed)
    seats = [SeatSpec(HUMAN)] + [SeatSpec(BOT, names)] * (players - 1)
    return Shell(start(config), seats,
                   lambda s: make_agent("heuristic", seed * 1000 + s, game=game),
                   make_hint=lambda s: make_agent("heuristic", 99, game=game),
                   width=width, style=style, tutorial=tutorial)


def play_out(s: Shell, extra: Sequence[str] = ()) -> list[str]:
    """Every text a player is shown in a whole game, moves made by the hint bot."""
    shown = [s.intro(), *s.advance()]
    while not s.over:
        seat = s.human_to_act
        assert seat is not None
        shown.append(s.table(seat))
        for line in extra:
            shown.append(s.handle(line).text)
        found = s.hint(seat)
        assert found is not None
        reply = s.handle(s.command_text(seat, found[0]))
        assert reply.moved, reply.text
        shown.append(reply.text)
    shown += [s.handle(w).text for w in ("scores", "last", "help", "table")]
    return shown


def too_wide(texts: Sequence[str], size: int) -> list[str]:
    return [line for text in texts for line in text.splitlines() if render.width(line) > size]


# --------------------------------------------------------------------------- width


@pytest.mark.parametrize("size", [60, 80, 120])
@pytest.mark.parametrize("players", [2, 4, 7, 10])
def test_no_line_is_wider_than_the_terminal(players: int, size: int) -> None:
    s = session(players=players, width=size, style=COLOR, rounds=2, seed=players)
    topics = ["rules", *(f"rules {t}" for t in teach.topics(s.config)), "rules all"]
    shown = play_out(s, extra=["stats", "scores", "last", "help", "bid x", "play 99",
                               *topics][: 5 if players > 4 else None])
    shown += [s.handle(t).text for t in topics]
    assert too_wide(shown, size) == []
    # the seats are all there: a 7-player table at 60 columns stacks or shortens, no seat lost
    table = session(players=players, width=size, seed=players)
    table.advance()
    screen = table.table(0)
    for seat in range(1, players):
        assert re.search(rf"(^|\s){seat}(\s|$)", screen.split("your hand")[0]), seat


@pytest.mark.parametrize("size", [60, 80, 120])
@pytest.mark.parametrize("mode", ["draw", "nodraw"])
def test_dix_fits_too(mode: str, size: int) -> None:
    s = session("dix", mode, 2, width=size, style=COLOR, seed=3)
    shown = play_out(s, extra=["help", "rules", "rules all"])
    assert too_wide(shown, size) == []


def test_narrow_layouts_shorten_names_then_stack_then_drop_drawings() -> None:
    names = ["you", *["heuristic"] * 9]
    wide = render.bids([1] * 10, names, [0] * 10, 200)
    assert "9 heuristic" in wide and len(wide.splitlines()) == 3
    short = render.bids([1] * 7, names[:7], [0] * 7, 60)
    assert "6 heur" in short and len(short.splitlines()) <= 4
    stacked = render.bids([1] * 10, names, [0] * 10, 25)
    assert all(render.width(line) <= 25 for line in stacked.splitlines())
    assert len(stacked.splitlines()) > 4  # the seats went into several tables
    call = Call.parse("1co")
    plays = [(s, Card.parse(t)) for s, t in enumerate(("2313", "3312", "3333"), 1)]
    full = render.trick(plays, call, names, "xactika", PLAIN, winning=2)
    assert "●" in full and "seat 2 (heuristic)" in full
    thin = render.trick(plays, call, names, "xactika", PLAIN, winning=2, size=40)
    assert "●" not in thin and all(render.width(line) <= 40 for line in thin.splitlines()[1:])
    assert "3312 (9)" in thin  # the card and its value stay


def test_fit_wraps_between_words_and_keeps_colour_out_of_the_count() -> None:
    text = "word " * 30
    assert all(len(line) <= 20 for line in render.fit(text, 20).splitlines())
    assert render.fit(text, 20).split() == text.split()  # no word cut
    bold = COLOR.bold("x" * 10)
    assert render.fit(bold, 12) == bold  # escapes take no room


# --------------------------------------------------------------------------- rules


@pytest.mark.parametrize("mode", ["win", "lose", "bid"])
def test_xactika_rules_follow_the_mode(mode: str) -> None:
    config = Config(mode=mode, seed=1)
    topics = teach.topics(config)
    assert ("bid" in topics) == (mode == "bid")
    scoring = topics["scoring"]
    assert ("LOWEST total wins" in scoring) == (mode == "lose")
    assert ("exactly your bid" in scoring) == (mode == "bid")
    overview = teach.rules_text(config)
    assert "rules TOPIC" in overview and "scoring" in overview
    assert teach.rules_text(config, "bidding") == topics.get("bid", teach.rules_text(
        config, "bidding"))
    assert "no rules topic 'frob'" in teach.rules_text(config, "frob")
    everything = teach.rules_text(config, "all")
    assert all(text in everything for text in topics.values())
    # the rule words that matter
    assert "highest value among the cards that show the call" in topics["win"]
    assert "played later wins" in topics["win"]
    assert "must play one" in topics["follow"]


@pytest.mark.parametrize("game", ["xactika", "dix", "ohhell"])
def test_the_rules_overview_reads_as_sentences(game: str) -> None:
    """Each sentence of 'rules' begins with a capital (Xactika's scoring began "...the
    later card). scoring (Play to Bid): ...", its topic's heading pasted on)."""
    for mode in game_rules(game).modes:
        overview = presentation(game).overview(Config(game=game, mode=mode, seed=1))
        assert re.findall(r"[.!?]\)? +[a-z]\w*", overview) == [], (mode, overview)


def test_the_worked_trick_is_what_the_engine_decides() -> None:
    text = teach.topics(Config(seed=1))["example"]
    assert "seat 3 wins" in text
    state = replay(start(Config(players=4, seed=1)))
    plays = [(1, Card.parse("2313")), (2, Card.parse("3312")), (3, Card.parse("3333")),
             (0, Card.parse("1211"))]
    call = Call.parse("1co")
    assert game_rules("xactika").trick_winner(state, plays, call) == 2
    why = teach.why_won("xactika", plays, call, 2, None, ["you", "a", "b", "c"])
    assert why.startswith("3312 wins: it ties 2313 at 9 showing 1 cone")
    assert "3333 (12) does not show the call" in why


@pytest.mark.parametrize("mode", ["draw", "nodraw"])
def test_dix_rules_explain_trumps_joker_ten_tricks_and_drawing(mode: str) -> None:
    config = Config(game="dix", mode=mode, players=2, seed=1)
    topics = teach.topics(config)
    assert {"trumps", "follow", "ten", "scoring", "draw"} <= set(topics)
    assert "joker" in topics["trumps"] and "no trumps" in topics["trumps"]
    assert "-3" in topics["ten"] and "9+A" in topics["ten"]
    # every pair the text names totals ten pips, by the engine's own pip values
    for a, b in (("2S", "8S"), ("3S", "7S"), ("4S", "6S"), ("5S", "5H"), ("9S", "AS"),
                 ("TS", "JS"), ("TS", "QS"), ("TS", "KS"), ("TS", "JK")):
        assert DixCard.parse(a).pips + DixCard.parse(b).pips == 10
    assert DixCard.parse("TS").pips + DixCard.parse("TH").pips != 10
    assert "two tens make 20" in topics["ten"]
    assert ("not in this game" in topics["draw"]) == (mode == "nodraw")
    assert "fewer ten-tricks" in topics["scoring"]
    assert "bid" not in teach.rules_text(config, "all").lower().replace("forbid", "")
    assert mode in teach.mode_text(config)


# --------------------------------------------------------------------------- tricks


@pytest.mark.parametrize("seed", range(1, 6))
def test_every_why_line_names_the_real_winner_by_the_rules(seed: int) -> None:
    s = session(players=5, seed=seed, width=500)
    shown = "\n".join(play_out(s))
    done = [i for i, e in enumerate(s.events) if isinstance(e, TrickWon)]
    assert len(done) == 8
    for i in done:
        tricks, _ = teach.round_tricks(s.events, i)
        t = tricks[-1]
        why = teach.why_won("xactika", t.plays, t.call, t.winner, None, s.names)
        assert why in shown
        card = dict(t.plays)[t.winner]
        assert why.startswith(f"{card} wins: ")
        showing = [c for _, c in t.plays if c.shows(t.call)]
        if "the only card" in why:
            assert showing == [card]
        elif "ties" in why:
            assert sum(c.value == card.value for c in showing) > 1
        else:
            assert all(c.value < card.value for c in showing if c != card)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_dix_tricks_explained_and_ten_tricks_announced(seed: int) -> None:
    s = session("dix", "draw", 2, seed=seed, width=500)
    shown = "\n".join(play_out(s))
    for i, event in enumerate(s.events):
        if isinstance(event, TrickWon):
            tricks, turned = teach.round_tricks(s.events, i)
            t = tricks[-1]
            why = teach.why_won("dix", t.plays, None, t.winner, turned, s.names)
            assert why in shown
            assert ("ten-trick!" in why) == is_ten_trick(t)
    assert "ten-trick!" in shown  # these seeds have some
    assert re.search(r"(you|seat 2 \(heuristic\)) wins? the round \(", shown)


def test_dix_draws_are_shown_to_their_drawer_only() -> None:
    s = session("dix", "draw", 2, seed=1)
    shown = "\n".join(play_out(s))
    mine = [e.card for e in s.events if isinstance(e, Drew) and e.seat == 0]
    theirs = [e.card for e in s.events if isinstance(e, Drew) and e.seat == 1]
    assert len(mine) == len(theirs) == 13
    for card in mine:
        assert f"you draw {card} " in shown
    assert shown.count("seat 2 (heuristic) draws a card from the stock (face down)") == 13
    for card in theirs:
        assert f"draws {card}" not in shown


def test_dix_live_table_shows_running_points_and_the_stock() -> None:
    s = session("dix", "draw", 2, seed=2)
    s.advance()
    for _ in range(6):
        seat = s.human_to_act
        assert seat is not None
        found = s.hint(seat)
        assert found is not None
        s.handle(s.command_text(seat, found[0]))
    screen = s.table(0)
    points = round_points(s.state.tricks, 2)
    row = next(line for line in screen.splitlines() if line.startswith("points"))
    assert row.split()[1:] == [f"{p:+d}" for p in points]
    assert re.search(r"stock: \d+ cards", screen)
    helptext = s.handle("help").text
    assert "bid" not in helptext.split("commands:")[1].split("rules")[0]
    assert "1323" not in helptext and "QH" in helptext
    assert "there is no bidding in Dix" in s.handle("bid 2").text


def test_round_end_says_who_made_their_bid() -> None:
    scored = RoundScored(9, 1, (2, 4, 0, 3), (2, 2, 0, 4), (2, -2, 0, -1), (2, -2, 0, -1))
    text = teach.round_end(Config(mode="bid", seed=1), scored, [], ["you", "a", "b", "c"])
    assert text.splitlines() == [
        "made their bid: you (bid 2: +2), seat 3 (bid 0: +0)",
        "missed: seat 2 (bid 4, took 2: -2), seat 4 (bid 3, took 4: -1)",
    ]
    win = RoundScored(9, 1, None, (2, 2, 0, 4), (2, 2, 0, 4), (2, 2, 0, 4))
    assert teach.round_end(Config(mode="win", seed=1), win, [], ["you", "a", "b", "c"]) == ""


def test_dix_round_end_names_the_winner_and_the_tie_break() -> None:
    def trick(a: str, b: str, winner: int) -> Trick:
        return Trick(None, ((0, DixCard.parse(a)), (1, DixCard.parse(b))), winner)

    tricks = [trick("2S", "8S", 1), trick("KH", "3H", 0)]  # 1 takes a ten-trick (-3)
    scored = RoundScored(9, 1, None, (1, 1), (1, -3), (1, -3))
    text = teach.round_end(Config(game="dix", players=2, seed=1), scored, tricks,
                           ["you", "bot"])
    assert "seat 2 (bot) took 1 trick (1 ten-trick at -3): -3" in text
    assert text.endswith("you win the round (more points)")
    even = [trick("KH", "3H", 0), trick("3C", "KC", 1)]
    text = teach.round_end(Config(game="dix", players=2, seed=1),
                           RoundScored(9, 1, None, (1, 1), (1, 1), (1, 1)), even,
                           ["you", "bot"])
    assert text.endswith("wins the round (equal points and ten-tricks, and won the last trick)")


# --------------------------------------------------------------------------- tutorial


def test_the_tutorial_coaches_round_one_then_hands_over() -> None:
    s = session(tutorial=True, rounds=2, seed=14)
    assert "guided first round" in s.intro()
    assert "four digits count its balls, cubes, cones and stars" in " ".join(s.intro().split())
    s.advance()
    assert s.prompt().startswith("tutorial ")
    first = s.table(0)
    assert "tutorial: first everyone bids" in first and "The hint bot suggests: 'bid " in first
    coached = 0
    shown: list[str] = []
    while s.state.round == 1 and not s.over:
        screen = s.table(0)
        assert "tutorial:" in screen
        coached += 1
        found = s.hint(0)
        assert found is not None
        shown.append(s.handle(s.command_text(0, found[0])).text)
    assert coached == 9  # the bid and eight cards
    assert any(teach.TUTORIAL_DONE.split(";")[0] in text for text in shown)
    assert "tutorial:" not in s.table(0) and not s.prompt().startswith("tutorial")


def test_tutorial_from_the_command_line() -> None:
    from xactika.frontends.repl.play import main

    out = io.StringIO()
    assert main(["--tutorial"], stdin=io.StringIO("rules\n"), stdout=out) == 0
    text = out.getvalue()
    assert "seed 14" in text and "tutorial: first everyone bids" in text
    assert "tutorial bid> rules" in text and "Play to Bid" in text
    err = io.StringIO()
    import contextlib

    with contextlib.redirect_stderr(err):
        assert main(["--tutorial", "--load", "x.rec"], stdin=io.StringIO(""),
                    stdout=io.StringIO()) == 2
    assert "--tutorial starts a new game" in err.getvalue()


def test_standings_follow_the_games_own_winners() -> None:
    """Dix breaks a tie in totals: the one winner is first, the other is second."""
    lines = render.standings((13, 13), (0,), ["you", "bot"], PLAIN).splitlines()[1:]
    assert lines[0].split()[:2] == ["1.", "you"] and lines[0].endswith("winner")
    assert lines[1].split()[:2] == ["2.", "seat"] and "winner" not in lines[1]
    shared = render.standings((13, 13), (0, 1), ["you", "bot"], PLAIN).splitlines()[1:]
    assert [line.split()[0] for line in shared] == ["1.", "1."]


def test_a_dix_game_tied_on_points_names_one_winner() -> None:
    s = session("dix", "draw", 2, seed=13, width=200)  # this seed ends 9 to 9
    shown = "\n".join(play_out(s))
    assert s.state.totals == (9, 9)
    standings = shown.split("final standings")[1]
    assert standings.count("winner") == 1
    assert re.search(r"wins? the round \(equal points", shown)


def test_dix_why_lines_for_trumps_discards_and_the_joker() -> None:
    def why(a: str, b: str, winner: int, turned: str = "9C") -> str:
        plays = [(0, DixCard.parse(a)), (1, DixCard.parse(b))]
        return teach.why_won("dix", plays, None, winner, DixCard.parse(turned), ["you", "bot"])

    assert why("JK", "KC", 1) == "KC wins: the higher trump (the joker is a trump ranked as 9C)"
    assert why("5D", "2C", 1) == "2C wins: a trump (clubs) beats the diamonds led"
    assert why("5D", "9H", 0) == "5D wins: 9H did not follow diamonds and is not a trump"
    assert why("5D", "KD", 1) == "KD wins: the higher diamond"
    assert why("JK", "QC", 0, "6D") == ("JK wins: a trump was led and QC is not a trump "
                                        "(the joker is a trump ranked as 6D)")
    assert why("5D", "9H", 0, "JK") == "5D wins: 9H did not follow diamonds (no trumps this round)"
    ten = why("9S", "AS", 0)  # 9 + 1 pips
    assert ten.endswith("; ten-trick! pips 9S 9 + AS 1 = 10: -3 for you")


def test_rules_and_help_keep_to_ascii_with_ascii() -> None:
    s = session(style=Style(color=False, ascii=True))
    s.advance()
    for line in ("rules all", "help", "rules cards"):
        text = s.handle(line).text
        assert text.isascii(), line
    assert "balls o, cubes #, cones ^ and stars *" in " ".join(s.handle("rules cards").text.split())
    assert "balls ● (o)" in " ".join(session().handle("rules cards").text.split())


WORD = st.tuples(st.text(alphabet="ab●★", min_size=1, max_size=14), st.booleans()).map(
    lambda w: COLOR.bold(w[0]) if w[1] else w[0])
LINE = st.tuples(st.integers(0, 6), st.lists(WORD, max_size=12),
                 st.sampled_from([" ", "  ", "   "])).map(lambda t: " " * t[0] + t[2].join(t[1]))


@given(st.lists(LINE, max_size=6), st.integers(12, 120))
def test_fit_never_leaves_a_line_too_wide_and_loses_no_letter(lines: list[str], size: int
                                                              ) -> None:
    text = "\n".join(lines)
    out = render.fit(text, size)
    assert all(render.width(line) <= size for line in out.splitlines())
    # the same letters in the same order: words are moved, not dropped or (short ones) cut
    assert "".join(render.strip_ansi(out).split()) == "".join(render.strip_ansi(text).split())
    if all(len(render.strip_ansi(w)) <= size - 8 for line in lines for w in line.split()):
        assert render.strip_ansi(out).split() == render.strip_ansi(text).split()
