#!/usr/bin/env bash
# Every row of issue 15's throughput table in one run, each script printing its own
# ratio against its peer measured in the same run. About 15 minutes on 2 idle cores;
# needs the bench extras (OpenSpiel, python-chess, numpy): pip install -e '.[bench,batch]'.
# Run it on an idle machine: the concurrency and start-up rows are wall-clock figures.
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-.venv/bin/python}
echo "== $(date -u +%FT%TZ) $(uname -n), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== referee: bench/random_play.py"; $py bench/random_play.py --repeat 3
echo "== batched simulator: bench/batch.py"; $py bench/batch.py --repeat 3
echo "== runner, concurrency, bot random, start-up: bench/match_speed.py"; $py bench/match_speed.py --repeat 3
echo "== engine start-up: bench/engine_startup.py"; $py bench/engine_startup.py
echo "== audit: bench/audit_throughput.py"; $py bench/audit_throughput.py --repeat 3
echo "== done, load $(cut -d' ' -f1-3 /proc/loadavg)"
