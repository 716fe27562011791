#!/usr/bin/env bash
# Run a command (default: the test suite) while four busy loops load the CPUs, as a shared CI machine does:
#   scripts/busy-test.sh python -m pytest -q -x tests/integration/test_bench_fake.py
# The loops start before the command and are always stopped (trap on exit, error and Ctrl-C); the load average
# is printed before and after. Exits with the command's status.
set -euo pipefail
cd "$(dirname "$0")/.."
LOOPS="${BUSY_LOOPS:-4}"
pids=()
stop_loops() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_loops EXIT
trap 'exit 130' INT TERM
for _ in $(seq "$LOOPS"); do
  python3 -c 'while 1: pass' &
  pids+=("$!")
done
sleep "${BUSY_WARMUP_S:-5}"  # let the load average rise before the command starts (reported, not waited on)
echo "busy-test.sh: $LOOPS busy loops (pids ${pids[*]}); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$#" -eq 0 ]; then set -- python -m pytest -q -x -p no:cacheprovider; fi
status=0
"$@" || status=$?
echo "busy-test.sh: command exited $status; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
