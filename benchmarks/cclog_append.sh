#!/usr/bin/env bash
# claude-code-log's cost for the same append as benchmarks/incremental.py measures for ccreport:
# warm its cache on a 50 MB session, append 10 lines, time the re-render (3 times).
# Needs the venv benchmarks/run.py makes (benchmarks/out/venv-claude-code-log).
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
SHARED=${SHARED:-$HERE/../../shared}
CCL=$HERE/out/venv-claude-code-log/bin/claude-code-log
W=${WORK:-/tmp/cclog-append}; rm -rf "$W"; mkdir -p "$W/fakehome"
python3 "$SHARED/bench/scale_home.py" "$SHARED/corpus/real" "$W/home" --mb 0.001 --giant-mb 50 >/dev/null
rm -rf "$W"/home/projects/*clone*
P=$W/home/projects/-home-bench-giant; F=$(ls "$P"/*.jsonl)
SRC=$(ls -S "$SHARED"/corpus/real/projects/*/*.jsonl | head -1)
export HOME=$W/fakehome  # nothing reads ~/.claude or opens a browser
/usr/bin/time -f "cold: %e s wall %U+%S cpu %M KB" "$CCL" "$P" -o "$W/out" >/dev/null 2>"$W/cold.err" || true; tail -1 "$W/cold.err"
for i in 1 2 3; do
  python3 "$SHARED/bench/scale_home.py" --append "$F" --from "$SRC" --lines 10 --interval 0 >/dev/null
  /usr/bin/time -f "append $i: %e s wall %U+%S cpu %M KB" "$CCL" "$P" -o "$W/out" >/dev/null 2>"$W/a.err" || true; tail -1 "$W/a.err"
done
rm -rf "$W"
