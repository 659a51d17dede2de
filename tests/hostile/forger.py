"""A forger who knows spec/TAMPER.md: tries and harms, for the version on the import path.

Not a test: a harness for the closing note of issue 11, section 3. It runs against
whichever ``xactika`` Python imports, so the same file measures an old checkout (put its
folders on PYTHONPATH) and this one. A *try* is one forged record (or match folder); a
*harm* is a try that the strictest audit the version offers accepts: ``audit --strict``
before keyed signatures, ``audit --strict --key <referee>`` after. Before signatures the
forger recomputes the chain; after, it also tries every way to sign (strip the sig line,
move an honest one, patch an honest one's head, sign with its own key) and a harm is any
of them passing.

    python3 tests/hostile/forger.py [--tries N] [--resume]
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from xactika.core.bots.agents import RandomAgent, self_play
from xactika.core.engine.api import Config, GameOver, Played, legal_actions, replay, step
from xactika.protocol.records.textform import format_record, read_record
from xactika.protocol.trust.audit import OK, audit_lines
from xactika.protocol.trust.tamper import commit_config

# keyed signatures, where this version has them (its auditor takes trusted keys)
KEYED = "trusted" in inspect.signature(audit_lines).parameters
if KEYED:
    from xactika.protocol.trust.signing import Signer

    REFEREE, FORGER = Signer.generate(), Signer.generate()
ROOT = Path(__file__).resolve().parents[2]
Events = list[Any]
Headers = list[tuple[str, str]]


def game(seed: int) -> Events:
    config = commit_config(Config(mode="bid", players=3, rounds=2, seed=seed))
    return self_play(config, [RandomAgent(seed * 10 + s) for s in range(3)])[1]


def headers(seats: str = "ann,bob,cy") -> Headers:
    return [("game", "xactika"), ("mode", "bid"), ("players", "3"), ("seats", seats)]


def honest(seed: int) -> str:
    if KEYED:
        return format_record(headers(), game(seed), signer=REFEREE)
    return format_record(headers(), game(seed))


def play_on(events: Events, rng: random.Random, first: Any = None) -> Events:
    state = replay(events)
    out = list(events)
    while legal_actions(state).seat is not None:
        commands = list(legal_actions(state).commands())
        command = first if first is not None else rng.choice(commands)
        first = None
        state, new = step(state, command)
        out += new
    return out


def accepted(text: str) -> bool:
    lines = text.splitlines()
    if KEYED:
        return audit_lines(lines, "f", strict=True, trusted={REFEREE.public}).status == OK
    return audit_lines(lines, "f", strict=True).status == OK


def presentations(hdrs: Headers, events: Events, seed: int) -> Iterator[str]:
    """Every way this forger can present a forged game."""
    yield format_record(hdrs, events)  # chain recomputed
    if not KEYED:
        return
    honest_sig = honest(seed).splitlines()[-1]
    as_honest = format_record(hdrs, events, signer=REFEREE).splitlines()[:-1]
    own = format_record(hdrs, events, signer=FORGER)
    patched = own.splitlines()[-1].rpartition(" ")[0] + " " + honest_sig.rpartition(" ")[2]
    yield "\n".join([*as_honest, honest_sig]) + "\n"
    yield "\n".join([*as_honest, patched]) + "\n"
    yield own


def winners(events: Events) -> tuple[int, ...]:
    over = events[-1]
    assert isinstance(over, GameOver)
    return over.winners


# --------------------------------------------------------------------------- record forgeries


def changed_card(seed: int) -> tuple[Headers, Events] | None:
    events = game(seed)
    for i, e in enumerate(events):  # the first played card that had a legal alternative
        if isinstance(e, Played):
            state = replay(events[:i])
            other = [c for c in legal_actions(state).commands() if c.card != e.card]
            if other:
                return headers(), play_on(events[:i], random.Random(seed), other[0])
    return None


def other_winner(seed: int) -> tuple[Headers, Events] | None:
    events = game(seed)
    cut = next(n for n, e in enumerate(events) if isinstance(e, Played))
    for s in range(100):
        forged = play_on(events[:cut], random.Random(s))
        if winners(forged) != winners(events):
            return headers(), forged
    return None


def swapped(seed: int) -> tuple[Headers, Events]:
    return headers("cy,bob,ann"), game(seed)


def headers_of_another(seed: int) -> tuple[Headers, Events]:
    return list(read_record(honest(seed + 1000).splitlines()).headers), game(seed)


def redealt(seed: int) -> tuple[Headers, Events]:
    return headers(), game(seed + 10_000)


KINDS: dict[str, Callable[[int], tuple[Headers, Events] | None]] = {
    "changed card": changed_card, "other winner": other_winner, "swapped names": swapped,
    "headers of another game": headers_of_another, "re-dealt with a new commitment": redealt,
}


def record_attacks(tries: int) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for kind, forge in KINDS.items():
        done = harms = 0
        for seed in range(1, tries + 1):
            forged = forge(seed)
            if forged is None:
                continue
            done += 1
            harms += any(accepted(t) for t in presentations(*forged, seed))
        out[kind] = (done, harms)
    moved = untrusted = 0
    for seed in range(1, tries + 1):
        a, b = honest(seed).splitlines(), honest(seed + 1).splitlines()
        if KEYED:  # b's events and headers under a's signature
            moved += accepted("\n".join([*b[:-1], a[-1]]) + "\n")
            untrusted += accepted(format_record(headers(), game(seed), signer=FORGER))
        else:  # nothing to move or to sign: any record with a chain passes
            moved += accepted("\n".join(b) + "\n")
            untrusted += accepted(format_record(headers(), game(seed)))
    out["signature moved from another record"] = (tries, moved)
    out["signed by an untrusted key"] = (tries, untrusted)
    return out


# --------------------------------------------------------------------------- match folders


def audit_folder(folder: Path) -> int:
    args = [sys.executable, "-m", "xactika.frontends.cli", "audit", "--strict", "--quiet"]
    if KEYED:
        key = folder.parent / "referee.pub"
        key.write_text(REFEREE.public.text + "\n", encoding="utf-8")
        args += ["--key", str(key)]
    return subprocess.run([*args, str(folder)], capture_output=True, check=False).returncode


def make_folder(folder: Path, games: int = 3) -> None:
    (folder / "games").mkdir(parents=True)
    manifest = None
    if KEYED:
        from xactika.protocol.trust.manifest import MANIFEST_FILE, ManifestWriter
        from xactika.protocol.trust.signing import parse_sig_line

        manifest = ManifestWriter(folder / MANIFEST_FILE, REFEREE)
    for n in range(1, games + 1):
        text = honest(n)
        (folder / "games" / f"g{n}.log").write_text(text, encoding="utf-8")
        if manifest is not None:
            sig = parse_sig_line(text.splitlines()[-1])
            manifest.add(f"games/g{n}.log", "", sig.events, sig.head)
    if manifest is not None:
        manifest.end()
        manifest.close()


def folder_attacks(tmp: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for kind in ("deleted", "added", "replaced"):
        folder = tmp / kind / "m"
        make_folder(folder)
        assert audit_folder(folder) == 0, f"the honest folder fails ({kind})"
        if kind == "deleted":
            (folder / "games" / "g2.log").unlink()
        elif kind == "added":
            (folder / "games" / "g4.log").write_text(honest(77), encoding="utf-8")
        else:
            (folder / "games" / "g2.log").write_text(honest(77), encoding="utf-8")
        out[f"match folder: game {kind}"] = (1, int(audit_folder(folder) == 0))
    return out


# --------------------------------------------------------------------------- forged resume


def match(args: Sequence[str], env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "xactika.frontends.cli", "match", *args,
                           "--json", "--progress", "none"], capture_output=True, text=True,
                          env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"match failed: {done.stderr}")
    return dict(json.loads(done.stdout))


def forged_resume(tmp: Path) -> dict[str, tuple[int, int]]:
    """Two short hand-written records favouring bot ex; harm: the table moves."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp / "cfg")}
    bot = f"{sys.executable} {ROOT / 'examples' / 'random_bot.py'}"
    settings = ["--bot", "name=ex", f"cmd={bot} 3", "--bot", "name=ey", f"cmd={bot} 7",
                "--players", "2", "--rounds", "2", "--deals", "3", "--seed", "5"]
    out = tmp / "resume"
    honest_run = match([*settings, "--out", str(out)], env)
    games = sorted((out / "games").glob("*.log"))
    for path, index in ((games[0], 1), (games[3], 4)):
        names = next(ln for ln in path.read_text().splitlines()
                     if ln.startswith("header seats")).split()[2]
        ex = names.split(",").index("ex")
        totals = ",".join("60" if s == ex else "-60" for s in range(2))
        path.write_text(
            f"header seats {names}\nheader match.game {index}\n"
            "event 1 game-started game=xactika mode=bid players=2 rounds=2 dealer=0 seed=1\n"
            f"event 2 game-over totals={totals} winners={ex}\n", encoding="utf-8")
    resumed = match(["--resume", "--out", str(out)], env)

    def ex_points(result: dict[str, Any]) -> float:
        row = next(b for b in result["summary"]["bots"] if b["name"] == "ex")
        return float(row["points_per_hand"]["mean"])

    print(f"  forged resume: ex {ex_points(honest_run):+.2f} -> {ex_points(resumed):+.2f} "
          f"points/hand; rejected: {len(resumed.get('rejected_on_resume', []))}")
    return {"forged --resume (2 records)":
            (1, int(resumed["summary"] != honest_run["summary"]))}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tries", type=int, default=20)
    ap.add_argument("--resume", action="store_true", help="also the forged --resume (slower)")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="forger-"))
    try:
        results = record_attacks(args.tries)
        results.update(folder_attacks(tmp))
        if args.resume:
            results.update(forged_resume(tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"keyed signatures: {'yes' if KEYED else 'no'}")
    for kind, (tries, harms) in results.items():
        print(f"  {kind:<40} tries {tries:>3}  harms {harms:>3}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
