#!/usr/bin/env bash
# Stops every process started by Deploy/start.sh for $STOWAGE_HOME: SIGTERM, then waits (15 s) for each and
# kills what is left. Only a pid that still runs the executable its pid file is named for is signalled (see
# pid_status in lib.sh); stale pid files (a dead or zombie process, a pid now used by another program) are removed.
cd "$(dirname "$0")/.."
source Deploy/lib.sh
bin_path 2>/dev/null || true   # without a build or swift, the .build paths below still match

shopt -s nullglob
STOP_PIDS=()
STOP_EXES=()
for f in "$STOWAGE_HOME"/run/*.pid; do
  name="$(basename "$f" .pid)"
  if ! exe="$(executable_for "$name")"; then
    log "$f: no known executable for '$name'; left alone"
    continue
  fi
  if pid_status "$f" "${BIN:-.build/debug}/$exe" ".build/debug/$exe" ".build/release/$exe"; then
    STOP_PIDS+=("$PID_STATUS_PID")
    STOP_EXES+=("$PID_STATUS_EXE")
  else
    log "$name: stale pid file ($PID_STATUS_WHY); removed"
  fi
  rm -f "$f"
done
stop_processes
log "stopped ${#STOP_PIDS[@]} processes"
exit 0
