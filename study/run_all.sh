#!/usr/bin/env bash
# Reproduces every figure in study/README.md (about 30 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-.venv/bin/python}
out=study/results
mkdir -p "$out"
for mode in bid win lose; do
  $py study/run_study.py --a heuristic --b random --mode $mode --deals 2000 --out $out/heuristic-random-$mode.json
done
$py study/run_study.py --a strong --b heuristic --mode bid --deals 1000 --out $out/strong-heuristic-bid.json
for mode in win lose; do
  $py study/run_study.py --a strong --b heuristic --mode $mode --deals 300 --out $out/strong-heuristic-$mode.json
done
$py study/run_study.py --a strong --b random --mode bid --deals 200 --out $out/strong-random-bid.json
# the compute check: 4x the budget on the first 150 deals
$py study/run_study.py --a strong --b heuristic --mode bid --deals 150 --think-ms 400 --out $out/strong400-heuristic-bid.json
