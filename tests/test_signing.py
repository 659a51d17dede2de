"""Keyed signatures (spec/TAMPER.md section 6): every forgery a forger who knows the
algorithms can make is caught by ``audit --strict --key PUB``, and the honest record
passes, so each test can fail."""

from __future__ import annotations

import os
import random
import stat
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from xactika.core.bots.agents import RandomAgent, self_play
from xactika.core.engine.api import (
    Config,
    Event,
    GameOver,
    Played,
    State,
    legal_actions,
    replay,
    step,
)
from xactika.frontends.records import audit as audit_cli
from xactika.frontends.records import keygen
from xactika.protocol.records.jsonl import jsonl_to_text, read_jsonl, record_to_jsonl, text_to_jsonl
from xactika.protocol.records.textform import RecordWriter, format_record, read_record
from xactika.protocol.referee.sansio import RefereeSession
from xactika.protocol.trust.audit import BAD_SIGNATURE, OK, UNTRUSTED, VERIFIED, audit_lines
from xactika.protocol.trust.signing import (
    Signer,
    config_dir,
    default_signer,
    load_public_keys,
    load_signer,
    parse_public,
    write_key,
)
from xactika.protocol.trust.tamper import commit_config

Headers = list[tuple[str, str]]
HONEST = Signer.generate()
FORGER = Signer.generate()
NAMES = "ann,bob,cy"


def game(seed: int, players: int = 3, rounds: int = 2) -> list[Event]:
    config = commit_config(Config(mode="bid", players=players, rounds=rounds, seed=seed))
    _, events = self_play(config, [RandomAgent(seed * 10 + s) for s in range(players)])
    return events


def headers(seats: str = NAMES) -> Headers:
    return [("game", "xactika"), ("mode", "bid"), ("players", "3"), ("seats", seats)]


def play_on(events: Sequence[Event], rng: random.Random,
            first: Callable[[State], object] | None = None) -> list[Event]:
    """The game continued from ``events`` by random legal play (first move chosen)."""
    state = replay(events)
    out = list(events)
    while True:
        legal = legal_actions(state)
        if legal.seat is None:
            return out
        commands = list(legal.commands())
        command = first(state) if first is not None else rng.choice(commands)
        first = None
        state, new = step(state, command)  # type: ignore[arg-type]
        out += new


def winners(events: Sequence[Event]) -> tuple[int, ...]:
    over = events[-1]
    assert isinstance(over, GameOver)
    return over.winners


# --------------------------------------------------------------------------- the forgeries


def changed_card() -> tuple[Headers, list[Event]]:
    """A played card changed to another legal card; the rest replayed legally."""
    events = game(11)
    i = next(n for n, e in enumerate(events) if isinstance(e, Played))
    played = events[i]
    assert isinstance(played, Played)
    state = replay(events[:i])
    other = next(c for c in legal_actions(state).commands()
                 if getattr(c, "card", played.card) != played.card)
    return headers(), play_on(events[:i], random.Random(1), lambda _: other)


def other_winner() -> tuple[Headers, list[Event]]:
    """The game replayed from the first card so that another seat wins."""
    events = game(12)
    cut = next(n for n, e in enumerate(events) if isinstance(e, Played))
    for s in range(200):
        forged = play_on(events[:cut], random.Random(s))
        if winners(forged) != winners(events):
            return headers(), forged
    raise AssertionError("no replay changed the winner")


def swapped_names() -> tuple[Headers, list[Event]]:
    return headers("cy,bob,ann"), game(11)


def headers_of_another() -> tuple[Headers, list[Event]]:
    """Game 13's signed headers (signer, id) on game 11's events."""
    signed = read_record(format_record(headers(), game(13), signer=HONEST).splitlines())
    return list(signed.headers), game(11)


def redealt() -> tuple[Headers, list[Event]]:
    """A re-deal from a new seed with a freshly computed commitment."""
    return headers(), game(999)


FORGERIES = {"changed card": changed_card, "other winner": other_winner,
             "swapped names": swapped_names, "headers of another game": headers_of_another,
             "re-dealt": redealt}


def variants(forged_headers: Headers, events: Sequence[Event]) -> dict[str, str]:
    """How the forger presents the forged game: every way the forger can sign it."""
    honest_sig = format_record(headers(), game(11), signer=HONEST).splitlines()[-1]
    chained = format_record(forged_headers, events)
    own = format_record(forged_headers, events, signer=FORGER)
    # the honest key's headers (signer, id), chain recomputed, and a sig line moved from
    # an honest record, or rewritten with the forged head and count
    as_honest = format_record(forged_headers, events, signer=HONEST).splitlines()[:-1]
    last = format_record(forged_headers, events, signer=FORGER).splitlines()[-1]
    patched = last.rpartition(" ")[0] + " " + honest_sig.rpartition(" ")[2]
    return {
        "chain recomputed, no signature": chained,
        "signature moved from an honest record": "\n".join([*as_honest, honest_sig]) + "\n",
        "honest signature bytes, forged head": "\n".join([*as_honest, patched]) + "\n",
        "signed by the forger's key": own,
    }


def strict_audit(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str],
                 key: Signer = HONEST) -> tuple[int, str]:
    pub = tmp_path / "referee.pub"
    pub.write_text(key.public.text + "\n", encoding="utf-8")
    log = tmp_path / "g.log"
    log.write_text(text, encoding="utf-8")
    code = audit_cli.main(["--strict", "--key", str(pub), str(log)])
    return code, capsys.readouterr().out


def test_the_honest_record_is_verified(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out = strict_audit(tmp_path, format_record(headers(), game(11), signer=HONEST),
                             capsys)
    assert code == 0, out
    assert f"verified: signed by {HONEST.public.fingerprint}" in out


@pytest.mark.parametrize("kind", FORGERIES)
def test_each_forgery_is_caught_by_a_strict_keyed_audit(
        kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    forged_headers, events = FORGERIES[kind]()
    for how, text in variants(forged_headers, events).items():
        code, out = strict_audit(tmp_path, text, capsys)
        assert code == 1, f"{kind}, {how}: passed\n{out}"
        # the chain of every variant holds and the rules pass: only the key catches it
        report = audit_lines(text.splitlines(), "forged", trusted={HONEST.public})
        assert report.signature != VERIFIED and report.complete, (kind, how)


def test_the_forgeries_change_what_they_claim() -> None:
    """The forgeries are real: a changed card, another winner, a new deal."""
    honest = game(11)
    assert changed_card()[1] != honest
    assert winners(other_winner()[1]) != winners(game(12))
    assert redealt()[1][1] != honest[1]


def test_a_record_signed_by_an_untrusted_key(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    text = format_record(headers(), game(11), signer=FORGER)
    code, out = strict_audit(tmp_path, text, capsys)
    assert code == 1 and f"signer unknown: signed by {FORGER.public.fingerprint}" in out
    report = audit_lines(text.splitlines(), "g")
    assert report.status == OK and report.signature == UNTRUSTED  # plain audit: a note
    code, out = strict_audit(tmp_path, text, capsys, key=FORGER)
    assert code == 0, out  # the same record, when its key is the trusted one


def test_a_signature_moved_between_records_of_the_same_key() -> None:
    a = format_record(headers(), game(11), signer=HONEST).splitlines()
    b = format_record(headers(), game(13), signer=HONEST).splitlines()
    moved = [*b[:-1], a[-1]]
    report = audit_lines(moved, "moved", trusted={HONEST.public})
    assert report.signature != VERIFIED
    assert any("sig head= is not this record's head" in p.reason for p in report.problems)


def test_lines_after_the_signature_are_refused() -> None:
    text = format_record(headers(), game(11), signer=HONEST).splitlines()
    report = audit_lines([*text, "header extra 1", text[-1]], "g", trusted={HONEST.public})
    assert report.problems[0].reason.startswith("a line after the sig line")
    assert len(report.problems) == 1 and report.signature == BAD_SIGNATURE


# --------------------------------------------------------------------------- writers


def test_record_writer_signs_at_game_over_and_unfinished_records_at_close(
        tmp_path: Path) -> None:
    events = game(11)
    done = tmp_path / "done.log"
    with RecordWriter(done, headers(), signer=HONEST) as w:
        for e in events:
            w.write(e)
        assert w.closed  # game-over sealed it
    assert done.read_text(encoding="utf-8") == format_record(
        read_record(done).headers, events, signer=HONEST)
    cut = tmp_path / "cut.log"
    with RecordWriter(cut, headers(), signer=HONEST) as w:
        for e in events[:20]:
            w.write(e)
    report = audit_lines(cut.read_bytes().splitlines(), "cut", trusted={HONEST.public})
    assert report.signature == VERIFIED and not report.complete


def test_the_engine_signs_its_record_and_reads_signed_records(tmp_path: Path) -> None:
    path = tmp_path / "e.log"
    session = RefereeSession(record=path, signer=lambda: HONEST)
    text = format_record(headers(), game(11), signer=HONEST)
    for line in text.splitlines():
        answer = session.feed(line)
        assert answer[-1].startswith("ok"), (line, answer)
    assert answer == ["ok sig"]
    report = audit_lines(path.read_bytes().splitlines(), "e", trusted={HONEST.public})
    assert report.status == OK and report.signature == VERIFIED
    record = read_record(path)  # the reader 'load' uses too
    assert record.header("signer") == HONEST.public.text and record.sig is not None


def test_jsonl_keeps_the_signature_both_ways() -> None:
    text = format_record(headers(), game(11), signer=HONEST)
    jsonl = text_to_jsonl(text.splitlines())
    assert '"type":"sig"' in jsonl.splitlines()[-1]
    assert jsonl_to_text(jsonl.splitlines()) == text
    record = read_jsonl(jsonl.splitlines())
    assert record.sig == text.splitlines()[-1]
    # a Record holds no chain tokens, but it keeps the signature line
    assert record_to_jsonl(record).splitlines()[-1] == jsonl.splitlines()[-1]
    report = audit_lines(jsonl_to_text(jsonl.splitlines()).splitlines(), "j",
                         trusted={HONEST.public})
    assert report.signature == VERIFIED


# --------------------------------------------------------------------------- keys


def test_keygen_writes_a_private_key_0600_and_a_public_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k" / "ref.key"
    assert keygen.main([str(path)]) == 0
    out = capsys.readouterr().out
    signer = load_signer(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert out.splitlines()[0] == signer.public.text
    assert f"# fingerprint: {signer.public.fingerprint}" in out
    assert f"# public key file: {path}.pub" in out
    assert load_public_keys(f"{path}.pub") == [signer.public]
    assert load_public_keys(path) == [signer.public]  # a private key names its public half
    assert keygen.main([str(path)]) == 1  # never overwritten
    assert load_signer(path).public == signer.public
    assert keygen.main(["--show", str(path)]) == 0
    assert signer.public.text in capsys.readouterr().out


def test_keygen_names_the_path_it_cannot_write_or_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 34: ``keygen BADPATH`` said ``No such file or directory`` without the path
    (and a file on the path read as the key existing)."""
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    cases = [
        ([str(tmp_path / "a-file" / "k")],
         f"xactika keygen: cannot write '{tmp_path / 'a-file' / 'k'}': a folder on its "
         "path is a file"),
        (["--show", str(tmp_path / "none")],
         f"xactika keygen: cannot read '{tmp_path / 'none'}': No such file or directory"),
        ([""], "xactika keygen: FILE is empty: name the key file, or leave FILE out"),
    ]
    for args, said in cases:
        assert keygen.main(args) == 2
        err = capsys.readouterr().err
        assert err.startswith(said) and err.count("\n") == 1, err
    assert not (tmp_path / "a-file" / "k").exists()


def test_the_default_key_lives_in_the_config_folder(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    first = default_signer()
    folder = config_dir()
    assert folder == tmp_path / "cfg" / "xactika"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "referee.key").stat().st_mode) == 0o600
    assert default_signer().public == first.public  # made once, then kept


def test_tests_never_touch_the_real_home() -> None:
    assert os.environ.get("XDG_CONFIG_HOME"), "conftest.py must set XDG_CONFIG_HOME"
    assert not config_dir().is_relative_to(Path.home() / ".config")


def test_key_formats_auditors_can_use(tmp_path: Path) -> None:
    signer = write_key(tmp_path / "k.key")
    from cryptography.hazmat.primitives import serialization

    raw = signer.public.raw
    key = serialization.load_pem_private_key(signer.pem(), None).public_key()
    ssh = key.public_bytes(serialization.Encoding.OpenSSH,
                           serialization.PublicFormat.OpenSSH).decode()
    pem = key.public_bytes(serialization.Encoding.PEM,
                           serialization.PublicFormat.SubjectPublicKeyInfo)
    assert parse_public(ssh + " someone@host").raw == raw
    assert parse_public(raw.hex()).raw == raw
    (tmp_path / "k.pem").write_bytes(pem)
    assert load_public_keys(tmp_path / "k.pem") == [signer.public]
    trusted = tmp_path / "trusted"
    trusted.write_text(f"# referees\n{FORGER.public.text} old\n\n{ssh}\n", encoding="utf-8")
    assert load_public_keys(trusted) == [FORGER.public, signer.public]
    for bad in ("ed25519:zz", "ssh-ed25519 AAAA", ""):
        with pytest.raises(ValueError):
            parse_public(bad)


def test_trusted_keys_file_on_the_command_line(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "g.log"
    log.write_text(format_record(headers(), game(11), signer=HONEST), encoding="utf-8")
    trusted = tmp_path / "trusted"
    trusted.write_text(f"{FORGER.public.text}\n{HONEST.public.text}\n", encoding="utf-8")
    assert audit_cli.main(["--strict", "--trusted-keys", str(trusted), str(log)]) == 0
    assert audit_cli.main(["--strict", str(log)]) == 1  # no key named: nothing verified
    assert audit_cli.main(["--key", str(tmp_path / "missing"), str(log)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot read" in err


def test_what_keygen_shows_is_a_key_audit_takes(tmp_path: Path) -> None:
    """`keygen --show > pub.txt` and `--key "$(xactika keygen --show)"` both work; the
    default key's public file is named."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    cli = [sys.executable, "-m", "xactika.frontends.cli"]
    log = tmp_path / "g.log"
    subprocess.run([*cli, "selfplay", "--seed", "3", "--quiet", "--record", str(log)],
                   env=env, check=True, capture_output=True)
    shown = subprocess.run([*cli, "keygen", "--show"], env=env, capture_output=True,
                           text=True, check=True).stdout
    assert str(tmp_path / "cfg" / "xactika" / "referee.key.pub") in shown
    (tmp_path / "pub.txt").write_text(shown, encoding="utf-8")
    for key in (str(tmp_path / "pub.txt"), shown.rstrip("\n")):
        done = subprocess.run([*cli, "audit", "--strict", "--key", key, str(log)], env=env,
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "verified: signed by SHA256:" in done.stdout


def test_keygen_and_audit_from_a_shell(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    cli = [sys.executable, "-m", "xactika.frontends.cli"]
    log = tmp_path / "g.log"
    subprocess.run([*cli, "selfplay", "--seed", "3", "--quiet", "--record", str(log)],
                   env=env, check=True, capture_output=True)
    pub = tmp_path / "cfg" / "xactika" / "referee.key.pub"
    done = subprocess.run([*cli, "audit", "--strict", "--key", str(pub), str(log)], env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "verified: signed by SHA256:" in done.stdout


def test_the_repl_save_is_signed_by_its_key(tmp_path: Path) -> None:
    from xactika.core.engine.api import start
    from xactika.frontends.repl.shell import BOT, HUMAN, SeatSpec
    from xactika.frontends.repl.shell import Shell as Repl

    key = tmp_path / "ref.key"
    signer = write_key(key)
    specs = [SeatSpec(HUMAN), SeatSpec(BOT, "random")]
    repl = Repl(start(commit_config(Config(mode="bid", players=2, rounds=1, seed=3))), specs,
                lambda s: RandomAgent(s))
    repl.key_file = str(key)
    assert "saved" in repl.handle(f"save {tmp_path / 'g.log'}").text
    report = audit_lines((tmp_path / "g.log").read_bytes().splitlines(), "g",
                         trusted={signer.public})
    assert report.signature == VERIFIED and report.signer == signer.public
    repl.key_file = str(tmp_path / "missing.key")
    assert repl.handle(f"save {tmp_path / 'h.log'}").text.startswith("cannot save: the signing")
    assert not (tmp_path / "h.log").exists()


def test_a_second_signer_or_id_header_is_refused() -> None:
    text = format_record(headers(), game(11), signer=HONEST).splitlines()
    at = next(i for i, line in enumerate(text) if line.startswith("header signer"))
    for extra in (f"header signer {FORGER.public.text}", "header id another"):
        # the forger re-chains, so only the duplicate itself is left to catch
        forged = format_record([*read_record([*text[:at], extra, *text[at:-1]]).headers],
                               game(11)).splitlines() + [text[-1]]
        report = audit_lines(forged, "g", trusted={HONEST.public})
        assert report.signature != VERIFIED
        assert any(p.reason.startswith("a second") for p in report.problems), extra


def test_a_good_signature_over_an_invalid_record_is_not_called_verified(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The result line stands outside the signature: changed, the game no longer holds."""
    text = format_record(headers(), game(11), signer=HONEST)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("result "))
    lines[at] = "result seat 0 (ann) wins; totals: ann 99, bob 0, cy 0"
    code, out = strict_audit(tmp_path, "\n".join(lines) + "\n", capsys)
    assert code == 1, out
    assert "verified: signed by" not in out.replace("not verified:", "")
    assert "not verified: the signature by" in out
    assert "; 0 verified by a trusted key" in out
