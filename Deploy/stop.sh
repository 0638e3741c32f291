#!/usr/bin/env bash
# Stops every process started by Deploy/start.sh for $STOWAGE_HOME: SIGTERM, then waits (15 s) for each.
cd "$(dirname "$0")/.."
source Deploy/lib.sh

shopt -s nullglob
pids=()
for f in "$STOWAGE_HOME"/run/*.pid; do
  pid="$(cat "$f")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" && pids+=("$pid")
  fi
  rm -f "$f"
done
for _ in $(seq 1 150); do
  alive=0
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
  [ "$alive" -eq 0 ] && { log "stopped ${#pids[@]} processes"; exit 0; }
  sleep 0.1
done
for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && { log "pid $pid did not stop in 15 s; killing"; kill -KILL "$pid"; }; done
exit 0
