"""Every why-line and hint a player is told, checked against the trick by the core's rules
(issue 41): "a trump (hearts) wins the trick" to a seat whose every trump is below one
already in it (3 players, ``3S AH``, seat 2 holding only ``2H``), "AH wins: a trump
beats the spades led" for ``3S AH 7H`` (which says nothing of why AH beat 7H), and "could
not follow" lines that never named the cards of the suit led that the winner beat.

Seeded games of every built-in game are played at random through the core. At each play
of a seat that follows, the line before its prompt (``cannot_follow``) and the tutorial's
(``coach``) are made; after each trick, why it was won (``why_won``), with the cards as
text and as spoken names. Each sentence, in English and German, must be one of the known
templates in that language (from the catalog), and each claim its fields make must hold
of the trick: the card named as winning is the core's winner, a card said to be the only
trump is, the cards listed as not following are exactly those, a seat told its card
cannot win holds none that would (``trick_winner`` asked of every legal card).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import attrs
import pytest

from xactika.core.engine.api import (
    Bid,
    Config,
    Play,
    State,
    TrickWon,
    game_rules,
    legal_actions,
    new_game,
    step,
)
from xactika.core.engine.api import Trick as CoreTrick
from xactika.core.games import dix as dix_rules
from xactika.core.games import ohhell as ohhell_rules
from xactika.frontends import i18n
from xactika.frontends.people import dix as dix_words
from xactika.frontends.people.presentation import Presentation, presentation
from xactika.frontends.people.seats import seat_shown

LANGS = ("en", "de")
GAMES_PER_SETTING = 12


@attrs.frozen
class Trick:
    """A trick as the core played it, or one being played (``winner`` None), with the seat
    to act and its legal cards."""

    game: str
    state: State  # the state the trick was played in (its turned card, its call)
    plays: tuple[tuple[int, Any], ...]
    call: Any
    winner: int | None = None
    seat: int | None = None
    legal: tuple[Any, ...] = ()
    hand: tuple[Any, ...] = ()


def suit(t: Trick, card: Any) -> str | None:
    """The suit a card follows as (Dix's joker is a trump)."""
    if t.game == "dix":
        return dix_rules.suit_of(card, t.state.turned)
    return getattr(card, "suit", None)


def trump(t: Trick) -> str | None:
    if t.game == "dix":
        return dix_rules.trump_suit(t.state.turned)
    if t.game == "ohhell":
        return ohhell_rules.trump_suit(t.state.turned)
    return None


def wins_with(t: Trick, card: Any) -> bool:
    """Whether ``card`` played now by the seat to act would take the trick so far."""
    assert t.seat is not None
    rules = game_rules(t.game)
    return rules.trick_winner(t.state, (*t.plays, (t.seat, card)), t.call) == t.seat


def winning(t: Trick) -> Any:
    seat = t.winner if t.winner is not None else game_rules(t.game).trick_winner(
        t.state, t.plays, t.call)
    return dict(t.plays)[seat]


# --------------------------------------------------------------------------- the templates

Fields = dict[str, Any]
Check = Callable[[Trick, Fields], None]


def _no_led(t: Trick, f: Fields) -> None:
    led = suit(t, t.plays[0][1])
    assert f["suit"] == words(led), f
    assert not any(suit(t, c) == led for c in t.hand), "told it has none of the suit led"


def _none_wins(t: Trick, f: Fields) -> None:
    assert not any(wins_with(t, c) for c in t.legal), "told it cannot win, but a card would"


def _trumps_led_or_none(t: Trick, f: Fields) -> None:
    assert trump(t) is None or trump(t) == suit(t, t.plays[0][1])


def _trump_word(t: Trick, f: Fields) -> None:
    assert trump(t) is not None and f["trump"] == words(trump(t))
    assert trump(t) != suit(t, t.plays[0][1])


def _trumped_by(t: Trick, f: Fields) -> None:
    best = winning(t)
    assert suit(t, best) == trump(t) != suit(t, t.plays[0][1]), "the trick is not trumped"
    assert f["card"] == [best], (f["card"], best)


def _no_trump_held(t: Trick, f: Fields) -> None:
    assert not any(suit(t, c) == trump(t) for c in t.hand), "told it holds no trump"


def _not_trumped(t: Trick, f: Fields) -> None:
    """No trump has been played on another suit led."""
    led = suit(t, t.plays[0][1])
    assert led == trump(t) or not any(suit(t, c) == trump(t) for _, c in t.plays), \
        "a trump is in the trick"


def _every_trump_wins(t: Trick, f: Fields) -> None:
    assert all(wins_with(t, c) for c in t.legal if suit(t, c) == trump(t))


def _only_trumps_win(t: Trick, f: Fields) -> None:
    winners = [c for c in t.legal if wins_with(t, c)]
    assert winners and all(suit(t, c) == trump(t) for c in winners), winners


def _holds_led(t: Trick, f: Fields) -> None:
    led = suit(t, t.plays[0][1])
    assert f["suit"] == words(led) and any(suit(t, c) == led for c in t.hand)


def _some_wins(t: Trick, f: Fields) -> None:
    assert any(wins_with(t, c) for c in t.legal), "told higher takes it, but none can"


def _is_winning(t: Trick, f: Fields) -> None:
    assert f["card"] == [winning(t)]


def _all(*checks: Check) -> Check:
    def run(t: Trick, f: Fields) -> None:
        for check in checks:
            check(t, f)
    return run


HINTS: dict[str | tuple[str, str], Check] = {
    "you have no {suit}: play any card; it cannot win the trick":
        _all(_no_led, _none_wins, _trumps_led_or_none),
    "you have no {suit} and no trump above {card}: play any card; it cannot win the trick":
        _all(_no_led, _none_wins, _trumped_by),
    "you have no {suit} and no trump ({trump}): play any card; it cannot win the trick":
        _all(_no_led, _none_wins, _trump_word, _no_trump_held),
    ("you have no {suit}: play any card; only a trump above {card} takes the trick from "
     "it, anything else loses it"): _all(_no_led, _trumped_by, _only_trumps_win),
    "you have no {suit}: play any card; a trump ({trump}) wins the trick, anything else loses it":
        _all(_no_led, _trump_word, _not_trumped, _every_trump_wins, _only_trumps_win),
    "you cannot follow: play any card (it cannot win the trick)": _none_wins,
    "tutorial: you have no {suit} and no trump above {card}: any card may be played, and it "
    "cannot win.": _all(_no_led, _none_wins, _trumped_by),
    "tutorial: you have no {suit} and no trump ({trump}): any card may be played, and it "
    "cannot win.": _all(_no_led, _none_wins, _trump_word, _no_trump_held),
    "tutorial: you have no {suit}: any card may be played; {card} has trumped the trick, so "
    "only a higher trump takes it, anything else loses it.":
        _all(_no_led, _trumped_by, _only_trumps_win),
    "tutorial: you have no {suit}: any card may be played; a trump ({trump}) takes it, "
    "anything else loses it.": _all(_no_led, _trump_word, _not_trumped, _only_trumps_win),
    "tutorial: you have no {suit}: any card may be played; a trump ({trump}) wins it, "
    "anything else loses it.": _all(_no_led, _trump_word, _not_trumped, _only_trumps_win),
    "tutorial: you have no {suit}, the trumps that were led: any card may be played, and it "
    "cannot win.": _all(_no_led, _none_wins, _trumps_led_or_none),
    "tutorial: you have no {suit}: any card may be played; no trumps this round, so it "
    "cannot win.": _all(_no_led, _none_wins, _trumps_led_or_none),
    "tutorial: {suit} was led and you have {suit}, so you must play one (marked with an "
    "arrow): higher to take the trick, lower to give it away.":
        _all(_holds_led, _not_trumped, _some_wins),
    "tutorial: {suit} was led and you have {suit}, so you must play one (marked with an "
    "arrow); {card} has trumped the trick, so yours cannot win it.":
        _all(_holds_led, _trumped_by, _none_wins),
    "tutorial: {suit} was led and you have {suit}, so you must play one (marked with an "
    "arrow); none of yours beats {card}, so yours cannot win it.":
        _all(_holds_led, _is_winning, _none_wins),
    "tutorial: {suit} was led and you have {suit}, so you must play one (marked with an "
    "arrow). Play higher to win the trick, lower to give it away; watch for a pip total of "
    "ten (-3 to the winner).": _all(_holds_led, _not_trumped),
    "tutorial: the call is {call} and some of your cards show it (marked with an arrow): you "
    "must play one. The highest value showing the call wins; ties go to the card played "
    "later.": lambda t, f: _xactika_shows(t, f, True),
    "tutorial: none of your cards shows {call}, so you may play any card, and it cannot win "
    "the trick: a good moment to get rid of a card you do not want.":
        lambda t, f: (_xactika_shows(t, f, False), _none_wins(t, f)),
}


def _xactika_shows(t: Trick, f: Fields, shows: bool) -> None:
    assert f["call"] == call_words(t.call)
    assert any(c.shows(t.call) for c in t.hand) == shows


def _won(t: Trick, f: Fields) -> Any:
    won = dict(t.plays)[t.winner]
    assert f["card"] == [won], (f["card"], won)
    return won


def _others(t: Trick, f: Fields, key: str, keep: Callable[[Any], bool]) -> None:
    """The cards listed under ``key`` are exactly the other cards that ``keep`` picks."""
    expected = sorted((str(c) for s, c in t.plays if s != t.winner and keep(c)))
    assert sorted(str(c) for c in f[key]) == expected, (key, f[key], expected)


def _trump_beats_led(t: Trick, f: Fields) -> None:
    won, led = _won(t, f), suit(t, t.plays[0][1])
    assert suit(t, won) == trump(t) != led and f["suit"] == words(led)
    assert f["trump"] == words(trump(t))
    assert not any(suit(t, c) == trump(t) for s, c in t.plays if s != t.winner)
    assert (f.get("joker") or "") == "" or any(getattr(c, "is_joker", False) for _, c in t.plays)


def _highest_trump_of_several(t: Trick, f: Fields) -> None:
    won, led = _won(t, f), suit(t, t.plays[0][1])
    assert suit(t, won) == trump(t) != led and f["suit"] == words(led)
    assert f["trump"] == words(trump(t))
    _others(t, f, "others", lambda c: suit(t, c) == trump(t))


def _all_followed(kind: str) -> Check:
    def run(t: Trick, f: Fields) -> None:
        _won(t, f)
        led = suit(t, t.plays[0][1])
        assert all(suit(t, c) == led for _, c in t.plays), "told every card followed"
        if kind == "trump":
            assert led == trump(t)
        elif kind == "suit":
            assert led != trump(t) and f["suit"] == one_of(led)
        else:
            assert led != trump(t)
    return run


def _not_followed(lower: bool, trumps: bool | None) -> Check:
    """``lower``: the led suit's other cards are listed; ``trumps``: the line says the cards
    that did not follow are not trumps (True), that there are none this round (False)."""
    def run(t: Trick, f: Fields) -> None:
        won, led = _won(t, f), suit(t, t.plays[0][1])
        assert suit(t, won) == led and f.get("suit", words(led)) == words(led)
        _others(t, f, "others", lambda c: suit(t, c) != led)
        assert f["others"], "no card is listed as not following"
        if lower:
            assert f["one"] == one_of(led)
            _others(t, f, "lower", lambda c: suit(t, c) == led)
        else:
            assert not any(suit(t, c) == led for s, c in t.plays if s != t.winner)
        if trumps is None:  # Dix: the cards did not follow (trumps were led)
            assert led == trump(t)
        elif trumps:
            assert trump(t) is not None and not any(suit(t, c) == trump(t) for c in f["others"])
        else:
            assert trump(t) is None
    return run


def _xactika(kind: str) -> Check:
    def run(t: Trick, f: Fields) -> None:
        won = _won(t, f)
        assert f["call"] == call_words(t.call)
        showing = [(s, c) for s, c in t.plays if c.shows(t.call)]
        if kind == "only":
            assert [c for _, c in showing] == [won]
        elif kind == "ties":
            assert sorted(map(str, f["others"])) == sorted(
                str(c) for s, c in showing if s != t.winner and c.value == won.value)
            assert f["others"] and f["value"] == str(won.value)
        else:
            assert f["value"] == str(won.value) and len(showing) > 1
            assert all(c.value < won.value for s, c in showing if s != t.winner)
    return run


def _xactika_higher(t: Trick, f: Fields) -> None:
    won = dict(t.plays)[t.winner]
    assert sorted(map(str, f["cards"])) == sorted(
        str(c) for _, c in t.plays if not c.shows(t.call) and c.value >= won.value)


WHYS: dict[str | tuple[str, str], Check] = {
    "{card} wins: a trump ({trump}) beats the {suit} led{joker}": _trump_beats_led,
    "{card} wins: the highest trump ({trump}), above {others}; a trump beats the {suit} led":
        _highest_trump_of_several,
    "{card} wins: the highest trump": _all_followed("trump"),
    "{card} wins: the highest {suit}": _all_followed("suit"),
    ("{card} wins: the highest {one}, above {lower}; {others} could not follow {suit} (no "
     "trumps this round)", "{card} wins: the highest {one}, above {lower}; {others} could not "
     "follow {suit} (no trumps this round)"): _not_followed(True, False),
    ("{card} wins: the highest {one}, above {lower}; {others} could not follow {suit} and is "
     "not a trump", "{card} wins: the highest {one}, above {lower}; {others} could not follow "
     "{suit} and are not trumps"): _not_followed(True, True),
    ("{card} wins: {others} could not follow {suit} (no trumps this round)",
     "{card} wins: {others} could not follow {suit} (no trumps this round)"):
        _not_followed(False, False),
    ("{card} wins: {others} could not follow {suit} and is not a trump",
     "{card} wins: {others} could not follow {suit} and are not trumps"):
        _not_followed(False, True),
    "{card} wins: the higher trump{joker}": _all_followed("trump"),
    "{card} wins: the higher {suit}{joker}": _all_followed("suit"),
    "{card} wins: the higher card{joker}": _all_followed("card"),
    "{card} wins: {others} did not follow {suit} (no trumps this round)":
        _not_followed(False, False),
    "{card} wins: {others} did not follow {suit} and is not a trump": _not_followed(False, True),
    "{card} wins: a trump was led and {others} is not a trump{joker}":
        _not_followed(False, None),
    "{card} wins: the only card showing {call}": _xactika("only"),
    "{card} wins: it ties {others} at {value} showing {call}, and the later card wins ties":
        _xactika("ties"),
    "{card} wins: the highest card showing {call} ({value})": _xactika("highest"),
    "{card} wins": lambda t, f: (_won(t, f), None)[1],
}
HIGHER = ("{why}; {cards} does not show the call", "{why}; {cards} do not show the call")


# --------------------------------------------------------------------------- matching


def words(suit_code: str | None) -> str:
    return dix_words.suit_words(suit_code) if suit_code else ""


def one_of(suit_code: str | None) -> str:
    return dix_words.one_of_suit(suit_code) if suit_code else ""


def call_words(call: Any) -> str:
    from xactika.frontends.people.xactika import shape_words
    return shape_words(call.shape, call.count)


def forms(template: str | tuple[str, str]) -> set[str]:
    """The template in the current language: its singular and plural forms."""
    if isinstance(template, tuple):
        return {i18n.ngettext(*template, n) for n in (1, 2)}
    return {i18n._(template)}


CARD_FIELDS = {"card", "others", "lower", "cards"}


def pattern(text: str) -> re.Pattern[str]:
    """A template as a regular expression: each field a group, a repeated one the same."""
    seen: set[str] = set()
    out = []
    for piece in re.split(r"(\{\w+\})", text):
        name = piece[1:-1] if re.fullmatch(r"\{\w+\}", piece) else None
        if name is None:
            out.append(re.escape(piece))
        elif name in seen:
            out.append(f"(?P={name})")
        elif name == "joker":  # " (the joker is a trump ...)" or nothing, after a field
            seen.add(name)
            out.append(r"(?P<joker>(?: \(.+\))?)")
        else:
            seen.add(name)
            out.append(f"(?P<{name}>.*?)")
    return re.compile("".join(out))


def read_cards(text: str, names: dict[str, Any]) -> list[Any]:
    """A list of card names (``a, b`` or ``a, b and c``) as the cards; a name may hold
    commas itself (Xactika's ``the 7 (1 ball, 2 cubes, ...)``), so the longest name first."""
    last = i18n._("{list} and {last}").format(list="\0", last="\1")
    joiners = (", ", last.replace("\0", "").replace("\1", ""))
    cards, at = [], 0
    while True:
        name = max((n for n in names if text.startswith(n, at)), key=len, default=None)
        assert name is not None, (text, text[at:])
        cards.append(names[name])
        at += len(name)
        if at == len(text):
            return cards
        joiner = next((j for j in joiners if text.startswith(j, at)), None)
        assert joiner is not None, (text, text[at:])
        at += len(joiner)


def claims(text: str, table: dict[Any, Check], names: dict[str, Any]) -> tuple[Check, Fields]:
    """The template ``text`` was made from, and its fields (cards read back)."""
    found = []
    for template, check in table.items():
        for form in forms(template):
            m = pattern(form).fullmatch(text)
            if m is not None:
                found.append((check, m.groupdict()))
    assert found, f"no known template says {text!r}"
    # the template that says the most in its own words: "{card} wins: the highest {suit}"
    # also matches a longer line, its {suit} swallowing the rest
    found.sort(key=lambda item: sum(len(v) for v in item[1].values()))
    for check, fields in found:  # a field like {joker} may match empty: try each reading
        try:
            read = {k: read_cards(v, names) if k in CARD_FIELDS and v else v
                    for k, v in fields.items()}
        except AssertionError:
            continue
        return check, read
    raise AssertionError(f"{text!r}: its cards are not cards of the game")


def _ten_trick(t: Trick, fields: Fields) -> None:
    trick = CoreTrick(None, t.plays, t.winner or 0)
    assert dix_rules.is_ten_trick(trick), "told a ten-trick"
    assert fields["who"] == i18n._("seat {n} ({name})").format(
        n=seat_shown(t.winner or 0), name=f"p{t.winner}")


def check_why(text: str, t: Trick, names: dict[str, Any]) -> None:
    tens = pattern(i18n._("{why}; ten-trick! pips {pips} = 10: -3 for {who}")).fullmatch(text)
    if tens is not None:
        _ten_trick(t, tens.groupdict())
        text = tens["why"]
    elif t.game == "dix":
        assert not dix_rules.is_ten_trick(CoreTrick(None, t.plays, t.winner or 0)), \
            "a ten-trick not told"
    for form in forms(HIGHER):
        m = pattern(form).fullmatch(text)
        if m is not None:
            listed = m["cards"]
            for value in re.findall(r"(\S+) \((\d+)\)", listed):  # "3213 (9)": its value
                assert value[0] not in names or str(names[value[0]].value) == value[1], value
            plain = re.sub(r" \(\d+\)", "", listed)
            _xactika_higher(t, {"cards": read_cards(plain, names)})
            text = m["why"]
            break
    check, fields = claims(text, WHYS, names)
    check(t, fields)


# --------------------------------------------------------------------------- the games


SETTINGS = [
    Config(game="ohhell", players=3, rounds=4, options={"top": 8, "hands": "fixed"}),
    Config(game="ohhell", players=5, rounds=3, options={"top": 10, "hands": "fixed"}),
    Config(game="ohhell", players=4, rounds=1, options={"top": 13, "hands": "fixed"}),
    Config(game="dix", mode="draw", rounds=1),
    Config(game="dix", mode="nodraw", rounds=1),
    Config(game="xactika", players=4, rounds=2),
]


def situations(config: Config, seed: int) -> Iterator[Trick]:
    """Each decision of a seat that follows, and each trick once won, of one game played
    at random through the core."""
    rng = random.Random(seed)
    state = new_game(attrs.evolve(config, seed=seed))
    rules = game_rules(config.game)
    while True:
        legal = legal_actions(state)
        if legal.seat is None:
            return
        if legal.kind == "bid":
            state, _ = step(state, Bid(legal.seat, rng.choice(legal.bids)))
            continue
        if state.trick:
            yield Trick(config.game, state, tuple(state.trick), state.call, seat=legal.seat,
                        legal=tuple(rules.legal_cards(state, legal.seat)),
                        hand=tuple(state.hands[legal.seat]))
        card = rng.choice(legal.cards)
        calls = legal.calls(card)
        before = state
        state, events = step(state, Play(legal.seat, card, rng.choice(calls)))
        for event in events:
            if isinstance(event, TrickWon):
                plays = (*before.trick, (legal.seat, card))
                yield Trick(config.game, before, plays, before.call if before.trick else
                            calls[0], winner=event.seat)


def card_names(shown: Presentation, game: str, spoken: bool) -> dict[str, Any]:
    return {shown.said(c, spoken): c for c in game_rules(game).deck}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("config", SETTINGS, ids=lambda c: f"{c.game}-{c.players}")
def test_every_why_line_and_hint_holds_of_the_trick(config: Config, lang: str) -> None:
    shown = presentation(config.game)
    said = {"hint": 0, "tutorial": 0, "why": 0}
    with i18n.using(lang):
        spoken_names = card_names(shown, config.game, True)
        text_names = card_names(shown, config.game, False)
        for seed in range(GAMES_PER_SETTING):
            for t in situations(config, 1000 * seed + 7):
                try:
                    if t.winner is None:
                        follow = shown.follow_rule(t.state, t.seat or 0)
                        if not follow.can_follow:
                            check, fields = claims(i18n.said(shown.cannot_follow(
                                follow, t.call)), HINTS, spoken_names)
                            check(t, fields)
                            said["hint"] += 1
                        check, fields = claims(shown.coach("play", follow), HINTS, spoken_names)
                        check(t, fields)
                        said["tutorial"] += 1
                        continue
                    names = [f"p{s}" for s in range(config.players)]
                    check_why(shown.why_won(t.plays, t.call, t.winner, t.state.turned, names),
                              t, text_names)
                    check_why(shown.why_won(t.plays, t.call, t.winner, t.state.turned, names,
                                            spoken=True), t, spoken_names)
                    said["why"] += 2
                except AssertionError as exc:
                    raise AssertionError(f"seed {1000 * seed + 7}, {lang}, trick "
                                         f"{[(s, str(c)) for s, c in t.plays]} (seat {t.seat}, "
                                         f"turned {t.state.turned}): {exc}") from None
    assert min(said.values()) > 0, said


def test_the_issues_trick_is_told_truly() -> None:
    """3 players, trumps hearts, ``3S AH`` led and followed: seat 2, holding only ``2H``,
    cannot win it; and ``3S AH 7H`` says why AH beat 7H."""
    from xactika.core.engine.api import PresetDeal
    deck = {str(c): c for c in ohhell_rules.DECK}
    hands = ((deck["3S"],), (deck["AH"],), (deck["2H"],))
    rest = (deck["5H"], *(c for c in ohhell_rules.DECK if str(c) not in {"3S", "AH", "2H", "5H"}))
    config = Config(game="ohhell", players=3, rounds=1, dealer=2,
                    deals=(PresetDeal(hands=hands, rest=rest),),
                    options={"top": 1, "hands": "fixed"})
    state = new_game(config)
    while legal_actions(state).kind == "bid":
        legal = legal_actions(state)
        state, _ = step(state, Bid(legal.seat, legal.bids[0]))
    for seat, card in ((0, "3S"), (1, "AH")):
        state, _ = step(state, Play(seat, deck[card]))
    shown = presentation("ohhell")
    follow = shown.follow_rule(state, 2)
    assert shown.cannot_follow(follow, None) == (
        "you have no spades and no trump above the ace of hearts: play any card; it cannot "
        "win the trick")
    assert "cannot win" in shown.coach("play", follow)
    plays = ((0, deck["3S"]), (1, deck["AH"]), (2, deck["7H"]))
    assert shown.why_won(plays, None, 1, deck["5H"], ["a", "b", "c"]) == (
        "AH wins: the highest trump (hearts), above 7H; a trump beats the spades led")
    with i18n.using("de"):
        said = shown.cannot_follow(shown.follow_rule(state, 2), None)
        assert said == ("du hast kein Pik und keinen Trumpf über das Herz-Ass: spiel eine "
                        "beliebige Karte; sie kann den Stich nicht gewinnen")
