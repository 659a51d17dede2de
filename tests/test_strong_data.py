"""study/strong_data.py: the strong bot's own rounds as training examples, the same for a
seed however they are split, labelled with the true hands."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

from xactika.core import new_game
from xactika.core.bots.infer import _L_HAND, NCARDS
from xactika.core.games.xactika.tables import INDEX

ROOT = Path(__file__).resolve().parent.parent


def _study(name: str) -> ModuleType:
    sys.path.insert(0, str(ROOT / "study"))  # its own imports of train_locate and kin
    spec = importlib.util.spec_from_file_location(f"study_{name}", ROOT / "study" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rounds_are_the_same_for_a_seed_however_split_and_differ_by_seed() -> None:
    sd = _study("strong_data")
    whole = sd.play_chunk((5, 0, 4, 2, 0.5, (2, 3, 4)))
    parts = [sd.play_chunk((5, 0, 1, 2, 0.5, (2, 3, 4))),
             sd.play_chunk((5, 1, 3, 2, 0.5, (2, 3, 4)))]
    other = sd.play_chunk((6, 0, 4, 2, 0.5, (2, 3, 4)))
    assert len(whole["x"]) > 10
    for k in sd.COLUMNS + ("round",):
        assert np.array_equal(whole[k], np.concatenate([p[k] for p in parts])), k
    assert sorted(set(whole["round"].tolist())) == [0, 1, 2, 3]
    assert not (len(other["x"]) == len(whole["x"]) and np.array_equal(other["x"], whole["x"]))


def test_labels_are_where_the_true_deal_put_each_unseen_card() -> None:
    sd = _study("strong_data")
    players = (3, 4)
    got = sd.play_chunk((7, 0, 3, 2, 1.0, players))
    others = 0
    for i in range(3):
        _, config, _ = sd.round_setup(7, i, players)
        n = config.players
        hands = [{INDEX[c] for c in h} for h in new_game(config).hands]
        rows = np.nonzero(got["round"] == i)[0]
        assert len(rows) >= 8 * n  # keep 1.0: every play of the round
        for r in rows:
            seat = int(got["seat"][r])
            y = got["y"][r]
            held = set(np.nonzero(got["x"][r][_L_HAND:_L_HAND + NCARDS])[0].tolist())
            assert held <= hands[seat]  # the view's own hand is the seat's dealt hand
            for c in range(NCARDS):
                if c in held:
                    assert y[c] == -1
                elif y[c] == 0:
                    assert not any(c in h for h in hands)  # set aside
                elif y[c] > 0:
                    assert c in hands[(seat + int(y[c])) % n]
                    others += 1
    assert others > 0


def test_the_command_writes_its_seed_commit_and_arrays(tmp_path: Path) -> None:
    out = tmp_path / "d.npz"
    run = subprocess.run([sys.executable, str(ROOT / "study" / "strong_data.py"), "--rounds",
                          "2", "--deals", "2", "--procs", "1", "--seed", "9", "--out",
                          str(out)], capture_output=True, text=True, cwd=ROOT, check=True)
    assert "seed 9" in run.stdout
    with np.load(out) as z:
        assert z["x"].shape[0] == z["y"].shape[0] == z["round"].shape[0] > 0
    bad = subprocess.run([sys.executable, str(ROOT / "study" / "strong_data.py"), "--out",
                          str(out), "--players", "1,4"], capture_output=True, text=True)
    assert bad.returncode == 2 and "each count from 2 to 10" in bad.stderr


def test_train_locate_holds_out_whole_rounds_of_the_files_it_reads() -> None:
    tl = _study("train_locate")
    data = tl.Data(4)
    data.add(np.zeros(tl.LOCATE_INPUT, dtype=np.uint8), np.zeros(NCARDS, dtype=np.int8))
    data.round = 3  # three simulated rounds before
    x = np.ones((5, tl.LOCATE_INPUT), dtype=np.uint8)
    y = np.ones((5, NCARDS), dtype=np.int8)
    data.extend(x, y, np.array([40, 40, 41, 43, 43], dtype=np.int32))
    data.extend(x[:2], y[:2])  # a file without rounds: never held out
    assert data.rounds == [0, 3, 3, 4, 6, 6, -1, -1]
    assert data.first_in == 1 and data.n == 8 and data.round == 7
    assert np.array_equal(data.x[1:6], x)
