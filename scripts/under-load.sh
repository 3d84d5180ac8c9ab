#!/usr/bin/env bash
# under-load.sh COMMAND...: runs COMMAND while CPU hogs keep every core busy,
# as on a learner's laptop or a CI machine where something else is building.
# HOGS busy loops (default: twice the cores) are started here, their PIDs
# kept, and killed when the command ends, however it ends. Prints the load
# average before and after, and the command's time. Exits with its status.
#
# A test that fails under load has found a race or a timing assumption: fix
# that (synctest, a fake clock, a channel), never add sleep or slack.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: $0 COMMAND..." >&2; exit 2; }

hogs=${HOGS:-$(( 2 * $(nproc) ))}
pids=()
stop_hogs() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM

for _ in $(seq 1 "$hogs"); do
  # A pure busy loop in its own shell: no I/O, no memory, just a core.
  bash -c 'while :; do :; done' &
  pids+=($!)
done
echo "under-load: $hogs CPU hogs started (pids ${pids[*]}) on $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
status=0
"$@" || status=$?
echo "under-load: '$*' exited $status after $(( $(date +%s) - start ))s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
