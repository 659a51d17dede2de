"""The REPL's game session, without a terminal: commands in, text out."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from xactika.core import Bid, Config, start
from xactika.core.bots.agents import agent_names, make_agent
from xactika.core.engine.api import BidMade, GameOver, Led, Played
from xactika.core.engine.check import check_log
from xactika.core.engine.errors import ParseError
from xactika.core.games.xactika import SHAPE_TOKENS
from xactika.frontends.repl import play
from xactika.frontends.repl.render import strip_ansi
from xactika.frontends.repl.shell import (
    BOT,
    CMD,
    HUMAN,
    SeatSpec,
    Shell,
    parse_seat_spec,
    seats_from_headers,
)
from xactika.protocol.records.textform import read_record

CARD = re.compile(r"\b[1-3]{4}\b")


def make_session(
    *, seed: int = 3, rounds: int = 1, mode: str = "bid", players: int = 4,
    seats: Sequence[SeatSpec] | None = None, practice: bool = True,
) -> Shell:
    config = Config(mode=mode, players=players, rounds=rounds, seed=seed)
    specs = list(seats) if seats else (
        [SeatSpec(HUMAN)] + [SeatSpec(BOT, "random")] * (players - 1)
    )
    return Shell(
        start(config), specs, lambda s: make_agent(specs[s].name, seed * 1000 + s),
        make_hint=lambda s: make_agent("random", 7 + s), practice=practice,
    )


def typed(session: Shell, seat: int) -> str:
    """The hint bot's move, typed the ways a person would: a position, a shape."""
    found = session.hint(seat)
    assert found is not None
    command, _ = found
    if isinstance(command, Bid):
        return str(command.bid)
    pos = session.shown_hand(seat).index(command.card) + 1
    if command.call is None:
        return str(pos)
    return f"{pos} {SHAPE_TOKENS[command.call.shape]}"


def play_to_end(session: Shell) -> list[str]:
    out = [*session.advance()]
    while not session.over:
        seat = session.human_to_act
        assert seat is not None
        out.append(session.table(seat))
        reply = session.handle(typed(session, seat))
        assert reply.moved, reply.text
        out.append(reply.text)
    return out


@pytest.mark.parametrize("mode", ["bid", "win", "lose"])
def test_a_whole_game_played_by_typed_lines(mode: str) -> None:
    session = make_session(mode=mode, rounds=2)
    text = "\n".join(play_to_end(session))
    assert isinstance(session.events[-1], GameOver)
    assert check_log(session.events).complete
    assert "final standings" in text
    # a score table after every round
    assert text.count("total") >= 2
    humans = [e for e in session.events if isinstance(e, BidMade | Led | Played) and e.seat == 0]
    assert len(humans) == 2 * (8 + (mode == "bid"))


def test_card_text_and_plain_call_words_are_accepted() -> None:
    session = make_session(seed=11, mode="win")
    session.advance()
    while session.legal.kind != "lead":
        session.handle(typed(session, 0))
    card = session.shown_hand(0)[-1]
    call = session.legal.calls(card)[1]
    word = ["balls", "cubes", "cones", "stars"][call.shape]
    reply = session.handle(f"play {card} {call.count}{word}")
    assert reply.moved, reply.text
    led = next(e for e in reversed(session.events) if isinstance(e, Led) and e.seat == 0)
    assert (led.card, led.call) == (card, call)


BAD_AT_BID = [
    ("bid 9", "out of range"),
    ("bid x", "bad bid"),
    ("bid", "bid takes one number"),
    ("play 1", "time to bid"),
    ("frobnicate", "unknown command"),
    ("1323 2st extra", "unknown command"),
]


@pytest.mark.parametrize(("line", "why"), BAD_AT_BID)
def test_bad_input_while_bidding_is_refused_and_changes_nothing(line: str, why: str) -> None:
    session = make_session()
    session.advance()
    before = list(session.events)
    reply = session.handle(line)
    assert not reply.moved
    assert why in reply.text
    # the legal bids are named exactly once, by the engine's message or the REPL's line
    assert reply.text.count("legal bids") == 1
    assert session.events == before


def test_bad_input_while_playing_names_the_legal_cards() -> None:
    session = make_session(seed=3)
    session.advance()
    session.handle("2")
    legal = session.legal
    assert legal.kind == "play"
    before = list(session.events)
    order = session.shown_hand(0)
    illegal = [i + 1 for i, c in enumerate(order) if c not in legal.cards]
    assert illegal, "seed 3 makes seat 0 follow with 2 of 8 cards"
    for line, why in [
        (str(illegal[0]), "you must follow"),
        ("99", "no card at position 99"),
        ("9999", "bad card"),
        ("3333", "not in your hand"),
        (f"{legal.cards[0]} 2st", "only the leader makes a call"),
    ]:
        if why == "not in your hand" and any(str(c) == "3333" for c in order):
            continue
        reply = session.handle(line)
        assert why in reply.text, (line, reply.text)
        assert "legal cards:" in reply.text
        assert session.events == before


def test_a_lead_without_a_call_is_refused_with_the_calls() -> None:
    session = make_session(seed=5, mode="win")
    session.advance()
    while session.legal.kind != "lead":
        session.handle(typed(session, 0))
    before = list(session.events)
    card = session.shown_hand(0)[0]
    reply = session.handle("1")
    calls = " ".join(str(c) for c in card.calls)
    assert f"leading {card} needs a call: one of {calls}" in reply.text
    reply = session.handle("1 9zz")
    assert "cannot call '9zz'" in reply.text
    assert session.events == before


def _shown_since(events: Sequence[object], seat: int) -> bool:
    """Whether another seat showed a card after ``seat``'s last decision."""
    mine = max(i for i, e in enumerate(events) if isinstance(e, BidMade | Led | Played)
               and e.seat == seat)
    return any(isinstance(e, Led | Played) and e.seat != seat for e in events[mine + 1:])


def test_undo_goes_back_to_the_previous_decision_until_another_seat_shows_a_card() -> None:
    """Issue 34: undo after the bots had led let a person bid again knowing their cards;
    as on Board Game Arena, undo stops at the first card another seat showed."""
    specs = [SeatSpec(HUMAN)] + [SeatSpec(BOT, "random")] * 3
    config = Config(mode="bid", players=4, rounds=1, seed=3, dealer=3)  # seat 0 bids first
    session = Shell(start(config), specs, lambda s: make_agent("random", 3000 + s),
                      make_hint=lambda s: make_agent("random", 7 + s))
    session.advance()
    assert "nothing to undo" in session.handle("undo").text
    bid = typed(session, 0)
    assert session.handle(bid).moved
    assert session.legal.kind == "lead" and not _shown_since(session.events, 0)
    after_bid = list(session.events)
    reply = session.handle("undo")
    assert reply.moved and f"undone: bid {bid}" in reply.text  # only bids came after it
    assert session.legal.kind == "bid" and session.human_to_act == 0
    assert session.handle(bid).moved
    assert session.events == after_bid  # the game goes on as before from there
    session.handle(typed(session, 0))  # the lead: the bots follow it with their cards
    assert _shown_since(session.events, 0)
    before = list(session.events)
    reply = session.handle("undo")
    assert not reply.moved and reply.text.startswith(
        "undo stops at the first card another seat showed: seat 2 (")
    assert "after your card" in reply.text and session.events == before


def test_undo_after_the_end_reopens_the_game_unless_a_card_was_shown_since() -> None:
    reopened = refused = 0
    for seed in range(6, 20):
        session = make_session(seed=seed)
        play_to_end(session)
        final = list(session.events)
        reply = session.handle("undo")
        if _shown_since(final, 0):
            assert "undo stops at the first card another seat showed" in reply.text
            assert session.over and session.events == final
            refused += 1
            continue
        reopened += 1
        assert reply.moved and not session.over
        assert session.human_to_act == 0
        last = max(i for i, e in enumerate(final) if isinstance(e, BidMade | Led | Played)
                   and e.seat == 0)
        assert session.events == final[:last]
        play_to_end(session)
        assert session.over
    assert reopened and refused


def test_undo_is_refused_outside_practice_games() -> None:
    strict = make_session(practice=False)
    strict.advance()
    strict.handle("2")
    before = list(strict.events)
    assert "practice games only" in strict.handle("undo").text
    assert strict.events == before
    hot = make_session(seats=[SeatSpec(HUMAN, "ann"), SeatSpec(HUMAN, "bob"),
                              SeatSpec(BOT, "random"), SeatSpec(BOT, "random")])
    assert not hot.practice
    assert "hot-seat" in hot.undo(0).text


def test_hot_seat_tables_show_only_the_acting_players_hand() -> None:
    session = make_session(seats=[SeatSpec(HUMAN, "ann"), SeatSpec(BOT, "random"),
                                  SeatSpec(HUMAN, "bob"), SeatSpec(BOT, "random")], rounds=1)
    session.advance()
    seen_both = set()
    while not session.over:
        seat = session.human_to_act
        assert seat is not None
        seen_both.add(seat)
        state = session.state
        others = {str(c) for s, h in enumerate(state.hands) if s != seat for c in h}
        shown = set(CARD.findall(strip_ansi(session.table(seat) + session.stats_text(seat))))
        assert not shown & others, f"seat {seat} sees {shown & others}"
        reply = session.handle(typed(session, seat))
        # narration after a move is public: no card still in anyone's hand
        left = {str(c) for h in session.state.hands for c in h}
        assert not set(CARD.findall(strip_ansi(reply.text))) & left
    assert seen_both == {0, 2}


def test_save_writes_a_record_that_loads_and_plays_on(tmp_path: Path) -> None:
    session = make_session(seed=8)
    session.advance()
    session.handle("3")
    session.handle(typed(session, 0))
    path = tmp_path / "game.rec"
    reply = session.handle(f"save {path}")
    assert "saved" in reply.text
    record = read_record(path)
    assert list(record.events) == session.events
    assert record.header("seed") == "8"
    events, seats, started = play._load(str(path))
    assert events == session.events
    assert started == record.header("date") == session.started  # when it began, kept
    assert seats == session.seats
    again = Shell(events, seats, lambda s: make_agent("random", s),
                    make_hint=lambda s: make_agent("random", s))
    play_to_end(again)
    assert again.over and check_log(again.events).complete
    assert again.events[: len(events)] == events


def test_save_to_a_bad_place_says_so(tmp_path: Path) -> None:
    session = make_session()
    reply = session.handle(f"save {tmp_path}/no/such/dir/x.rec")
    assert reply.text.startswith("cannot save to")
    assert "save needs a file name" in session.handle("save").text


def test_info_commands_answer_without_changing_the_game() -> None:
    session = make_session(seed=3)
    session.advance()
    session.handle("2")
    session.handle(typed(session, 0))
    before = list(session.events)
    for line, expect in [("help", "commands:"), ("scores", "so far"), ("last", "trick 1"),
                         ("stats", "not yet seen this round"), ("hint", "hint: play"),
                         ("table", "hand"), ("", "hand")]:
        assert expect in session.handle(line).text, line
    assert session.events == before


def test_seat_specs() -> None:
    names = agent_names()
    assert parse_seat_spec("human", names) == SeatSpec(HUMAN)
    assert parse_seat_spec("human:Ann", names) == SeatSpec(HUMAN, "Ann")
    assert parse_seat_spec("bot:random", names) == SeatSpec(BOT, "random")
    assert parse_seat_spec("random", names) == SeatSpec(BOT, "random")
    spec = parse_seat_spec("cmd:python3 'my bot.py' --fast", names)
    assert spec == SeatSpec(CMD, "python3", ("python3", "my bot.py", "--fast"))
    assert parse_seat_spec(spec.text(), names) == spec
    for bad in ("bot:nobody", "cmd:", "robot", "human:two words", "cmd:'unclosed"):
        with pytest.raises(ParseError):
            parse_seat_spec(bad, names)
    headers = [("seat.0", "human"), ("seat.1", "bot:random")]
    assert seats_from_headers(headers, 2) == [SeatSpec(HUMAN), SeatSpec(BOT, "random")]
    assert seats_from_headers(headers, 3) is None


def test_a_crashing_bot_program_is_replaced_and_the_game_goes_on(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    w = line.split()\n"
        "    if w[0] == 'hello': print('hello 1 name=crashy', flush=True)\n"
        "    elif w[0] == 'isready': print('readyok', flush=True)\n"
        "    elif w[0] == 'go': sys.exit(3)\n"
        "    elif w[0] == 'quit': break\n"
    )
    args = play.build_parser().parse_args(
        ["--seed", "2", "--rounds", "1", "--players", "2", "--mode", "win",
         "--seat", f"2=cmd:{sys.executable} {bot}", "--bots", "random", "--hint-bot", "random"]
    )
    session = play.setup(args, play.render.PLAIN)
    try:
        assert session.names[1] == "crashy"
        assert not session.practice
        text = "\n".join(play_to_end(session))
        assert "faulted" in text and "a random bot takes over" in text
        assert session.over
    finally:
        session.close()


# --------------------------------------------------------------------------- the shell


def run_shell(session: Shell, lines: str, *, interactive: bool = False) -> tuple[int, str]:
    out = io.StringIO()
    read = play.pipe_reader(io.StringIO(lines), out)
    code = play.Loop(session, read, out, interactive=interactive, clear="<CLEAR>\n").run()
    return code, out.getvalue()


def test_shell_stops_cleanly_at_end_of_input() -> None:
    code, text = run_shell(make_session(), "")
    assert code == 0
    assert "your bid" in text


def test_shell_hot_seat_clears_the_screen_between_people() -> None:
    session = make_session(seats=[SeatSpec(HUMAN, "ann"), SeatSpec(HUMAN, "bob"),
                                  SeatSpec(BOT, "random"), SeatSpec(BOT, "random")])
    hands = [{str(c) for c in h} for h in session.state.hands]
    code, text = run_shell(session, "\n1\n\nquit\n")
    assert code == 0
    bob, ann = text.split("<CLEAR>")
    intro, bob = bob.split("pass the terminal to seat 2 (bob); press Enter when ready")
    assert not CARD.findall(intro)
    # dealer 0 (ann) bids last: bob goes first, once he says he is at the keys
    assert "seat 2 (bob)'s hand" in bob and "bob bid> 1" in bob
    assert ann.startswith("\npass the terminal to seat 1 (ann)")
    assert "seat 1 (ann)'s hand" in ann
    assert hands[0] & set(CARD.findall(ann)) == hands[0]
    assert not set(CARD.findall(bob)) & hands[0]
    assert not set(CARD.findall(ann)) & hands[1]


def test_cli_without_stdin_exits_cleanly() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "xactika.frontends.cli", "play", "--seed", "1", "--rounds", "1"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0
    assert "Traceback" not in done.stderr + done.stdout
    assert "your bid" in done.stdout


@pytest.mark.parametrize(("argv", "why"), [
    (["--players", "1"], "players"),
    (["--seat", "7=human"], "no seat 7: seats are 1 to 4"),
    (["--seat", "0=human"], "no seat 0: seats are 1 to 4"),
    (["--seat", "1=bot:nobody"], "bad seat"),
    (["--seat", "1=bot:random"], "no seat is human"),
    (["--dealer", "5"], "--dealer is a seat from 1 to 4, not 5"),
    (["--load", "/no/such/file.rec"], "cannot read"),
    (["--load", "x", "--seed", "3"], "drop --seed"),
    (["--bots", "nobody"], "unknown bot"),
])
def test_cli_bad_flags_get_one_clear_line(argv: list[str], why: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "xactika.frontends.cli", "play", *argv],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert why in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1


def test_cli_load_of_a_tampered_record_is_refused(tmp_path: Path) -> None:
    session = make_session(seed=4)
    session.advance()
    session.handle("1")
    path = tmp_path / "g.rec"
    session.handle(f"save {path}")
    lines = path.read_text().splitlines()
    lead = next(i for i, line in enumerate(lines) if " lead " in line)
    led = re.search(r"card=(\d{4})", lines[lead])
    assert led is not None
    # the next player "plays" the card that was just led: not in their hand
    lines[lead + 1] = re.sub(r"card=\d{4}", f"card={led.group(1)}", lines[lead + 1])
    path.write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "xactika.frontends.cli", "play", "--load", str(path)],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stderr.startswith("xactika play:")
    assert "seq 8" in done.stderr


def test_a_random_seed_is_told_only_once_the_game_is_over() -> None:
    """The seed fixes every hand: a player who did not choose it learns it at the end."""
    args = play.build_parser().parse_args(["--rounds", "1", "--bots", "random",
                                           "--hint-bot", "random"])
    session = play.setup(args, play.render.PLAIN)
    seed = str(session.config.seed)
    text = session.intro() + "\n".join(play_to_end(session))
    before, after = text.split("final standings", 1)
    assert f"seed {seed}" not in before
    assert f"--seed {seed}" in after
    chosen = play.setup(play.build_parser().parse_args(["--seed", "77"]), play.render.PLAIN)
    assert "seed 77" in chosen.intro()
