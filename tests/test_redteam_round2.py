"""The smaller holes of issue 25, item 4, each tried as an attacker would.

Before the fix: a private key others could read signed without a word (2 of 2 runs);
the engine recorded a 65,536-byte header line that its own reader refuses (1 of 3
sizes); a comment holding a CR was answered ``error syntax`` (2 of 2); ``serve --seed S``
gave table k the seed S+k-1, so a seat whose table ended knew the next tables' seeds
(2 of 2). After: 0 of each. (Items 1 to 3: test_audit_folders.py, test_sandbox_shared.py.)
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from xactika.frontends.match import runner as match
from xactika.frontends.net import serve
from xactika.frontends.records import audit as audit_cli
from xactika.protocol.records.textform import MAX_LINE
from xactika.protocol.referee.sansio import RefereeSession
from xactika.protocol.trust.signing import KeyFileError, load_signer, write_key

# --------------------------------------------------------------------------- keys


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620], ids=oct)
def test_a_private_key_others_may_read_or_change_is_refused(tmp_path: Path, mode: int) -> None:
    key = tmp_path / "ref.key"
    write_key(key)
    load_signer(key)  # 0600: fine
    key.chmod(mode)
    with pytest.raises(KeyFileError, match=f"mode {mode:04o}.*chmod 600"):
        load_signer(key)


def test_match_refuses_such_a_key_in_one_line_and_makes_no_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "ref.key"
    write_key(key)
    key.chmod(0o644)
    out = tmp_path / "m"
    code = match.main(["--bot", "random", "--bot", "heuristic", "--players", "2",
                       "--rounds", "1", "--deals", "1", "--out", str(out), "--key", str(key),
                       "--progress", "none", "--sandbox", "none"])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert len(err.splitlines()) == 1 and "is open to others (mode 0644)" in err


# --------------------------------------------------------------------------- engine


def recorded(tmp_path: Path, header_bytes: int) -> tuple[list[str], Path]:
    """A game whose record got one header line of ``header_bytes`` bytes, if accepted."""
    s = RefereeSession(files=tmp_path)
    line = "header k " + "v" * (header_bytes - len("header k "))
    said = s.feed(line)
    s.feed("newgame game=xactika players=2 rounds=1 seed=1")
    s.feed("record r.log")
    return said, tmp_path / "r.log"


@pytest.mark.parametrize("size", [MAX_LINE - 2, MAX_LINE - 1, MAX_LINE])
def test_the_engine_records_only_header_lines_its_reader_takes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], size: int) -> None:
    said, record = recorded(tmp_path, size)
    if size >= MAX_LINE:  # with its line end, longer than any reader takes
        assert said[-1].startswith("error limit ") and f"at most {MAX_LINE - 1}" in said[-1]
        return
    assert said == ["ok header"]
    audit_cli.main([str(record)])
    assert "longer than" not in capsys.readouterr().out


@pytest.mark.parametrize("line", [b"# a\rb\n", b"#a\rb\r\n", b"  # x\ry", "# a\rb"])
def test_a_comment_holding_a_cr_gets_no_answer(line: str | bytes) -> None:
    s = RefereeSession()
    assert s.feed(line) == []
    assert s.feed("isready") == ["readyok"]


def test_a_command_holding_a_cr_is_still_refused() -> None:
    assert RefereeSession().feed(b"isready\rquit\n")[-1].startswith("error syntax ")


# --------------------------------------------------------------------------- serve


def test_a_table_seed_says_nothing_of_the_next_tables() -> None:
    args = serve.build_parser().parse_args(["--seed", "1000", "--tables", "4"])
    seeds = [int(serve._pairs(args, k)["seed"]) for k in range(4)]
    assert len(set(seeds)) == 4 and 1000 not in seeds  # the master seed is never dealt
    assert all(b - a != 1 for a, b in itertools.pairwise(seeds))
    assert all(s.bit_length() > 200 for s in seeds)  # HMAC-SHA256: 256 bits
    assert seeds == [serve.table_seed(1000, k) for k in range(1, 5)]  # reproducible


def test_a_guessable_serve_seed_is_warned_about() -> None:
    assert "guessable deals: --seed 1000" in (serve.seed_note(1000) or "")
    assert serve.seed_note(2**200) is None and serve.seed_note(None) is None
