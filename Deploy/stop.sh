#!/usr/bin/env bash
# Stops every process started by Deploy/start.sh for $STOWAGE_HOME: SIGTERM, then waits (15 s) for each and
# kills what is left. Only a pid that still runs the executable its pid file is named for is signalled (see
# pid_status in lib.sh); stale pid files (a dead or zombie process, a pid now used by another program) are removed.
cd "$(dirname "$0")/.."
source Deploy/lib.sh
bin_path 2>/dev/null || true   # without swift on PATH, the .build paths below still match

shopt -s nullglob
pids=()
exes=()
for f in "$STOWAGE_HOME"/run/*.pid; do
  name="$(basename "$f" .pid)"
  if ! exe="$(executable_for "$name")"; then
    log "$f: no known executable for '$name'; left alone"
    continue
  fi
  if pid_status "$f" "${BIN:-.build/debug}/$exe" ".build/debug/$exe" ".build/release/$exe"; then
    if kill -TERM "$PID_STATUS_PID"; then
      pids+=("$PID_STATUS_PID")
      exes+=("$(readlink "/proc/$PID_STATUS_PID/exe" 2>/dev/null || true)")
    else
      log "$name: pid $PID_STATUS_PID could not be signalled (it exited meanwhile?)"
    fi
  else
    log "$name: stale pid file ($PID_STATUS_WHY); removed"
  fi
  rm -f "$f"
done

# Whether the i-th signalled process still runs (a zombie has exited; a reused pid is not ours).
still_running() { process_status "${pids[$1]}" "${exes[$1]% (deleted)}"; }

for _ in $(seq 1 150); do
  alive=0
  for i in "${!pids[@]}"; do
    if still_running "$i"; then alive=1; fi
  done
  [ "$alive" -eq 0 ] && { log "stopped ${#pids[@]} processes"; exit 0; }
  sleep 0.1
done
for i in "${!pids[@]}"; do
  if still_running "$i"; then
    log "pid ${pids[$i]} did not stop in 15 s; killing"
    kill -KILL "${pids[$i]}" || true
  fi
done
exit 0
