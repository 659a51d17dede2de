"""Translations: the catalogs are complete and current, the language is chosen per
context, and a new language is one catalog file."""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from xactika.frontends import i18n
from xactika.frontends.repl import play

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "frontends" / "locale"
FIELD = re.compile(r"\{[a-z_]*\}")


@pytest.fixture(autouse=True)
def fresh_catalogs() -> Iterator[None]:
    i18n.translator.cache_clear()
    yield
    i18n.translator.cache_clear()


def extracted() -> set[object]:
    """What babel.cfg extracts from the sources now (the .pot's message ids)."""
    with (ROOT / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f)
    found: set[object] = set()
    for _file, _line, message, _comments, context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords={
                "_": None, "N_": None, "ngettext": (1, 2), "gettext": None,
                "pgettext": ((1, "c"), 2)}):
        found.add((context, message if isinstance(message, str) else tuple(message)))
    return found


def ids(path: Path) -> set[object]:
    with path.open("rb") as f:
        return {(m.context, m.id if isinstance(m.id, str) else tuple(m.id))
                for m in read_po(f) if m.id}


def test_the_template_and_every_catalog_hold_every_extracted_message() -> None:
    now = extracted()
    assert len(now) > 200
    assert ids(LOCALE / "xactika.pot") == now, "run the extraction (README, Translations)"
    for po in LOCALE.glob("*/LC_MESSAGES/xactika.po"):
        missing = now - ids(po)
        assert not missing, f"{po}: not in the catalog: {sorted(map(str, missing))[:5]}"


@pytest.mark.parametrize("lang", ["de"])
def test_every_message_is_translated_not_fuzzy_and_keeps_its_fields(lang: str) -> None:
    with (LOCALE / lang / "LC_MESSAGES" / "xactika.po").open("rb") as f:
        catalog = read_po(f)
    assert not catalog.fuzzy
    count = 0
    for message in catalog:
        if not message.id:
            continue
        count += 1
        assert not message.fuzzy, message.id
        singular = message.id if isinstance(message.id, str) else message.id[0]
        forms = [message.string] if isinstance(message.string, str) else list(message.string)
        assert forms and all(forms), f"untranslated: {singular!r}"
        for form in forms:  # a lost or misspelt {field} would fail at .format() on screen
            assert sorted(FIELD.findall(form)) == sorted(FIELD.findall(singular)), singular
    assert count > 200


def test_german_plural_forms_and_terms() -> None:
    de = i18n.translator("de")
    assert de.ngettext("{n} ball", "{n} balls", 1).format(n=1) == "1 Kugel"
    assert de.ngettext("{n} ball", "{n} balls", 3).format(n=3) == "3 Kugeln"
    assert de.ngettext("{n} round", "{n} rounds", 1).format(n=1) == "1 Runde"
    assert de.gettext("Play to Bid") == "Ansage"
    assert de.gettext("Play to Win") == "High Score"
    assert de.gettext("Play to Lose") == "Low Score"
    assert i18n.translator("en").gettext("Play to Bid") == "Play to Bid"


def test_the_language_belongs_to_the_context_not_the_process() -> None:
    """Two people at one table may read different languages at once."""
    seen: dict[str, str] = {}
    ready = threading.Barrier(2)

    def reader(lang: str) -> None:
        with i18n.using(lang):
            ready.wait()  # both inside their 'using' at once
            seen[lang] = i18n._("the game is over")

    threads = [threading.Thread(target=reader, args=(lang,)) for lang in ("de", "en")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"de": "das Spiel ist aus", "en": "the game is over"}
    assert i18n.current() == "en"


@pytest.mark.parametrize(("env", "lang"), [
    ({"LANG": "de_DE.UTF-8"}, "de"),
    ({"LANG": "de_AT.UTF-8", "LC_MESSAGES": "en_GB.UTF-8"}, "en"),
    ({"LC_ALL": "de_CH.UTF-8", "LANG": "en_US.UTF-8"}, "de"),
    ({"LANGUAGE": "fr:de", "LANG": "fr_FR.UTF-8"}, "de"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LANG": "pt_BR.UTF-8"}, "en"),
    ({}, "en"),
])
def test_the_terminal_language_comes_from_the_environment(env: dict[str, str],
                                                          lang: str) -> None:
    assert i18n.from_environment(env) == lang


def test_lang_flag_picks_and_refuses_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert i18n.choose("de-DE", {}) == "de"
    assert i18n.choose("en", {"LANG": "de_DE.UTF-8"}) == "en"
    code = play.main(["--lang", "xx", "--seed", "1"], stdin=io.StringIO(""),
                     stdout=io.StringIO())
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().count("\n") == 0 and "--lang takes one of en, de" in err


def test_the_page_gets_the_same_catalog_as_json() -> None:
    page = i18n.catalog_json("de")
    assert page["lang"] == "de" and page["plural"] == "(n != 1)"
    assert page["messages"]["the game is over"] == "das Spiel ist aus"
    assert page["messages"]["{n} star"] == ["{n} Stern", "{n} Sterne"]
    assert i18n.catalog_json("en")["messages"] == {}
    assert i18n.catalog_json("../de")["messages"] == {}  # no path out of the folder


TOY = r'''msgid ""
msgstr ""
"Language: fr\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\n"
"Content-Type: text/plain; charset=utf-8\n"

msgid "{who} bids {bid}"
msgstr "{who} annonce {bid}"

msgid "{n} round"
msgid_plural "{n} rounds"
msgstr[0] "{n} manche"
msgstr[1] "{n} manches"

#, fuzzy
msgid "the game is over"
msgstr "FUZZY"
'''


def test_a_third_language_is_one_catalog_file(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "locale" / "fr" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "xactika.po").write_text(TOY, encoding="utf-8")
    monkeypatch.setenv(i18n.PATH_ENV, str(tmp_path / "locale"))
    assert i18n.languages() == ["en", "de", "fr"]
    assert i18n.from_environment({"LANG": "fr_BE.UTF-8"}) == "fr"
    out = io.StringIO()
    code = play.main(["--lang", "fr", "--seed", "5", "--rounds", "1", "--players", "3"],
                     stdin=io.StringIO("quit\n"), stdout=out)
    text = out.getvalue()
    assert code == 0
    assert i18n.current() == "en"  # the language was the call's, not the caller's
    assert "1 manche" in text  # French plural rule: 1 (and 0) singular
    assert re.search(r"seat 1 \(\w+\) annonce \d", text)  # what fr lacks stays English
    fr = i18n.translator("fr")
    assert fr.gettext("the game is over") == "the game is over"  # fuzzy: not used
    assert fr.ngettext("{n} round", "{n} rounds", 0) == "{n} manche"
