"""The completion engine: pure suggestions from text and a context, no terminal."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from xactika.core import Config, start
from xactika.core.bots.agents import make_agent
from xactika.frontends.repl.shell import BOT, HUMAN, SeatSpec, Shell
from xactika.frontends.repl.suggest import (
    COMMAND_HELP,
    Context,
    SuggestCompleter,
    resolve_card,
    suggest,
)

HAND = ("1111", "1122", "2122", "3121", "1223", "3221", "2331", "3323")
CALLS = {c: tuple((f"{int(d)}{t}", "") for d, t in zip(c, ("ba", "cu", "co", "st"), strict=True))
         for c in HAND}


def texts(text: str, ctx: Context) -> list[str]:
    return [s.text for s in suggest(text, ctx)]


def test_bidding_offers_the_legal_bids_first_then_commands() -> None:
    ctx = Context(kind="bid", bids=(0, 2, 3), hand=HAND)
    got = texts("", ctx)
    assert got[:3] == ["0", "2", "3"]
    assert "play " not in got and "bid " in got and "hint " in got
    assert texts("bid ", ctx) == ["0", "2", "3"]
    assert texts("bid 2", ctx) == ["2"]
    assert texts("bid 1", ctx) == []


def test_following_offers_only_legal_cards() -> None:
    ctx = Context(kind="play", hand=HAND, legal=("2122", "2331"),
                  meta={"2122": "●● ■ ▲▲ ★★ (7)"})
    assert texts("play ", ctx) == ["2122", "2331"]
    assert texts("play 23", ctx) == ["2331"]
    assert texts("2", ctx) == ["2122", "2331"]
    assert "bid " not in texts("", ctx)
    first = suggest("play 2", ctx)[0]
    assert (first.start, first.meta) == (-1, "●● ■ ▲▲ ★★ (7)")
    # no calls when following
    assert texts("play 2122 ", ctx) == []


def test_a_lead_offers_the_calls_of_the_card_given_by_text_or_position() -> None:
    ctx = Context(kind="lead", hand=HAND, legal=HAND, calls=CALLS)
    assert texts("play 3323 ", ctx) == ["3ba", "3cu", "2co", "3st"]
    assert texts("8 ", ctx) == ["3ba", "3cu", "2co", "3st"]
    assert texts("play 8 3", ctx) == ["3ba", "3cu", "3st"]
    assert texts("3 2c", ctx) == ["2co"]
    assert texts("9 ", ctx) == []  # no ninth card
    assert texts("play 3323 3st ", ctx) == []


def test_commands_complete_case_insensitively_and_help_takes_a_command() -> None:
    ctx = Context(kind="play", hand=HAND, legal=HAND)
    # a command word completes with a blank after it, ready for what follows
    assert texts("sc", ctx) == ["scores "]
    assert texts("ST", ctx) == ["stats "]
    assert texts("sa", ctx) == ["save "]
    assert texts("rules ", Context(topics=("cards", "win"))) == ["cards", "win", "all"]
    assert texts("help ", ctx) == [c for c in COMMAND_HELP if c != "bid"]
    assert texts("help u", ctx) == ["undo"]
    no_undo = Context(kind="play", hand=HAND, legal=HAND,
                      commands=tuple(c for c in COMMAND_HELP if c != "undo"))
    assert texts("u", no_undo) == []
    over = Context(kind="none")
    assert "play " not in texts("", over) and "quit " in texts("", over)


def test_resolve_card_by_text_or_position() -> None:
    ctx = Context(hand=HAND)
    assert resolve_card("1", ctx) == "1111"
    assert resolve_card("8", ctx) == "3323"
    assert resolve_card("0", ctx) is None
    assert resolve_card("9", ctx) is None
    assert resolve_card("2331", ctx) == "2331"
    assert resolve_card("3333", ctx) is None


def test_the_completer_adapter_yields_prompt_toolkit_completions(tmp_path: object) -> None:
    ctx = Context(kind="lead", hand=HAND, legal=HAND, calls=CALLS)
    completer = SuggestCompleter(lambda: ctx)
    doc = Document("play 8 3", 8)
    got = list(completer.get_completions(doc, CompleteEvent(completion_requested=True)))
    assert [c.text for c in got] == ["3ba", "3cu", "3st"]
    assert all(c.start_position == -1 for c in got)


def test_save_completes_paths(tmp_path: object) -> None:
    import os

    base = str(tmp_path)
    open(os.path.join(base, "game-one.rec"), "w").close()
    completer = SuggestCompleter(lambda: Context())
    text = f"save {base}/game-"
    got = list(completer.get_completions(Document(text, len(text)), CompleteEvent()))
    assert [c.text for c in got] == ["one.rec"]


def _session(seed: int) -> Shell:
    seats = [SeatSpec(HUMAN)] + [SeatSpec(BOT, "random")] * 3
    config = Config(mode="bid", players=4, rounds=1, seed=seed)
    return Shell(start(config), seats, lambda s: make_agent("random", seed + s),
                   make_hint=lambda s: make_agent("random", seed))


@given(seed=st.integers(0, 2**16), steps=st.integers(0, 8))
def test_every_suggested_move_is_accepted_by_the_session(seed: int, steps: int) -> None:
    """From a real game's context: each suggested card, call or bid is legal."""
    session = _session(seed)
    session.advance()
    for _ in range(steps):
        if session.over:
            return
        hint = session.hint_text(0).split("  (")[0].removeprefix("hint: ")
        session.handle(hint)
    if session.over:
        return
    ctx = session.context()
    legal = session.legal
    if ctx.kind == "bid":
        assert texts("bid ", ctx) == [str(b) for b in legal.bids]
        lines = [f"bid {b}" for b in texts("bid ", ctx)]
    else:
        cards = texts("play ", ctx)
        assert sorted(cards) == sorted(str(c) for c in legal.cards)
        lines = []
        for card in cards:
            calls = texts(f"play {card} ", ctx)
            lines += [f"play {card} {c}" for c in calls] if calls else [f"play {card}"]
        assert len(lines) == len(legal)
    before = list(session.events)
    for line in lines:
        trial = _session(seed)
        trial.events, trial.state = list(before), session.state
        trial._build_agents()
        assert trial.handle(line).moved, line
