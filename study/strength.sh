#!/usr/bin/env bash
# Issue 17's table at full size: the cheater's bound, the strong bot, the levels, the
# ratings, in all three modes. DEALS=1000 (the default) takes about an hour on 2 idle
# cores (the strong bot about 1 s of CPU a deal, the cheater 0.1 to 1 s, the levels less);
# DEALS=40 is a smoke run of a few minutes. The strong bot plays on a clock: run it on an
# idle machine. Results land in study/results/strength/ (or $OUT).
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-.venv/bin/python}
deals=${DEALS:-1000}
out=${OUT:-study/results/strength}
mkdir -p "$out"
# CLUSTER=ray (or ray=ADDRESS) plays every deal on a Ray cluster (docs/SCALE.md)
run() { $py study/run_study.py --deals "$deals" ${CLUSTER:+--cluster "$CLUSTER"} "$@"; }
for mode in bid win lose; do
  # the bound: one cheater (or strong bot) against three heuristic seats, on the same deals
  run --a cheater --b heuristic --format 1v3 --mode $mode --out $out/cheater-heuristic-$mode-1v3.json
  run --a strong --b heuristic --format 1v3 --mode $mode --out $out/strong-heuristic-$mode-1v3.json
  $py study/bound.py $out/strong-heuristic-$mode-1v3.json $out/cheater-heuristic-$mode-1v3.json
  # the levels (strong:3 is the heuristic itself, strong:5 the strong bot) and random
  for bot in strong:1 strong:2 strong:4 strong random; do
    run --a $bot --b heuristic --mode $mode --out "$out/${bot/:/}-heuristic-$mode.json"
  done
  $py study/ratings.py --mode $mode --markdown $out/*-heuristic-$mode*.json
done
