"""The documents read right: links resolve, the spec is self-contained, and the commands
the README and the program tell a user to type work as written."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
# Built in pieces so that this file does not name what it forbids.
OUTSIDE = ("../" + "shared", "/work/" + "shared")


def markdown_files() -> list[Path]:
    """Every .md file of the checkout (tracked or new), none from the venv or caches."""
    done = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                           "*.md"], cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode == 0:
        return sorted({ROOT / line for line in done.stdout.splitlines()
                       if (ROOT / line).exists()})
    skip = {".venv", ".git", "build", "dist", ".pytest_cache", ".hypothesis", "node_modules"}
    return sorted(p for p in ROOT.rglob("*.md") if not skip & set(p.relative_to(ROOT).parts))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, blanks to '-'."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            base = slug(line.lstrip("#"))
            n = 0
            while (name := base if n == 0 else f"{base}-{n}") in found:
                n += 1
            found.add(name)
    return found


def broken_links(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
    bad = []
    for _, target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        where = f"{path.relative_to(ROOT)}: ({target})"
        if ROOT not in (dest, *dest.parents):
            bad.append(f"{where} points outside the repository")
        elif not dest.exists():
            bad.append(f"{where} does not exist")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{where} has no heading #{anchor}")
    return bad


def test_markdown_files_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in markdown_files()}
    assert {"README.md", "spec/RULES.md", "spec/DIX.md"} <= names


def test_every_link_in_a_markdown_file_resolves() -> None:
    bad = [b for path in markdown_files() for b in broken_links(path)]
    assert bad == []


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    page = ROOT / "spec" / "RULES.md"
    fake = page.with_name("_probe_links.md")
    try:
        fake.write_text("[a](RULES.md) [b](NOPE.md) [c](RULES.md#no-such-part) "
                        "[d](RULES.md#preset-deals) [e](../../x.md)\n", encoding="utf-8")
        bad = broken_links(fake)
    finally:
        fake.unlink()
    assert len(bad) == 3
    assert "NOPE.md) does not exist" in bad[0]
    assert "no heading #no-such-part" in bad[1]
    assert "outside the repository" in bad[2]


def test_the_spec_names_no_file_outside_the_repository() -> None:
    """spec/ is self-contained: no rules file beside the checkout is needed or named."""
    offenders = []
    for path in markdown_files():
        text = path.read_text(encoding="utf-8")
        for needle in (*OUTSIDE, "`shared/"):
            if needle in text:
                offenders.append(f"{path.relative_to(ROOT)}: {needle}")
    assert offenders == []


def test_no_file_refers_outside_the_repository() -> None:
    done = subprocess.run(["git", "grep", "-l", "-F", "-e", OUTSIDE[0], "-e", OUTSIDE[1]],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode == 128:
        pytest.skip("not a git checkout")
    assert done.stdout.split() == []


# --------------------------------------------------------------------------- commands


def readme_commands() -> list[str]:
    """Every `xactika ...` the README shows: in code spans, tables and code blocks."""
    text = (ROOT / "README.md").read_text(encoding="utf-8").replace("\\|", "|")
    found = re.findall(r"`(xactika [^`]+)`", text)
    for block in re.findall(r"```(?:sh|bash|console)?\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            for part in re.split(r"&&|;", line):
                part = part.strip()
                if part.startswith("xactika "):
                    found.append(part)
    return found


def test_the_readme_commands_name_real_subcommands_and_flags() -> None:
    from xactika.frontends.cli import COMMANDS
    from xactika.frontends.cli.completion import flags

    commands = readme_commands()
    assert any(c.startswith("xactika play") for c in commands)
    assert any(c.startswith("xactika completion") for c in commands)
    for command in commands:
        words = command.split()
        sub = words[1]
        assert sub in COMMANDS, command
        known = {n for f in flags(sub) for n in f.names}
        for word in words[2:]:
            if word == "--":
                break  # the bot's own command follows
            flag = word.split("=", 1)[0]
            if flag.startswith("--"):
                assert flag in known, f"{command}: {flag}"


def test_the_readme_set_up_makes_xactika_runnable() -> None:
    """The set-up line activates the venv, so the bare `xactika` of every later example
    is found; and the README says once that the examples need it active."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = re.search(r"## Set up on a fresh machine\n\n```sh\n(.*?)\n```", text, re.S)
    assert setup is not None
    line = setup.group(1).splitlines()[0]
    steps = [s.strip() for s in line.split("&&")]
    assert steps[0] == "python3 -m venv .venv"
    activate = steps.index(". .venv/bin/activate")
    assert all(not s.startswith("xactika") for s in steps[:activate])
    assert "assumes the environment is active" in text


def _env(path: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = path
    env.pop("VIRTUAL_ENV", None)
    return env


SCRIPT = Path(sys.executable).with_name("xactika")


@pytest.mark.skipif(not SCRIPT.exists(), reason="needs the installed console script")
@pytest.mark.parametrize("venv_on_path", [False, True])
def test_the_continue_command_after_save_works_as_written(tmp_path: Path,
                                                          venv_on_path: bool) -> None:
    """'save' tells how to continue; that exact command, pasted into a shell, runs."""
    path = "/usr/bin:/bin" + (f":{SCRIPT.parent}" if venv_on_path else "")
    code = ("import sys; from xactika.frontends.repl.play import main; "
            "sys.exit(main(['--seed', '2', '--rounds', '1']))")
    game = subprocess.run([sys.executable, "-c", code], input="save g.rec\n", cwd=tmp_path,
                          capture_output=True, text=True, env=_env(path), timeout=60,
                          check=False)
    said = re.search(r"to continue:\n  (.+)\n", game.stdout)
    assert said is not None, game.stdout
    command = said.group(1)
    assert command.startswith("xactika " if venv_on_path else str(SCRIPT))
    again = subprocess.run(["sh", "-c", command], input="", cwd=tmp_path, capture_output=True,
                           text=True, env=_env(path), timeout=60, check=False)
    assert again.returncode == 0, again.stderr
    assert "Xactika: Play to Bid" in again.stdout and "not found" not in again.stderr
    assert shlex.split(command)[-1] == "g.rec"


@pytest.mark.skipif(not SCRIPT.exists(), reason="needs the installed console script")
@pytest.mark.parametrize("args", [[], ["check-bot"]])
def test_commands_named_in_messages_run_as_written(tmp_path: Path, args: list[str]) -> None:
    """The usage line and check-bot's complaint name the command as it can be typed here."""
    path = "/usr/bin:/bin"
    done = subprocess.run([str(SCRIPT), *args], cwd=tmp_path, capture_output=True, text=True,
                          env=_env(path), timeout=60, check=False)
    said = re.search(r"(?:Run '|expected )(\S+) ", done.stdout + done.stderr)
    assert said is not None, done.stdout + done.stderr
    assert said.group(1) == str(SCRIPT)  # a bare 'xactika' is not on this PATH
    again = subprocess.run(["sh", "-c", f"{said.group(1)} --version"], capture_output=True,
                           text=True, env=_env(path), timeout=60, check=False)
    assert again.returncode == 0 and again.stdout.startswith("xactika ")
