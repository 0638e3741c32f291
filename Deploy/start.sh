#!/usr/bin/env bash
# Starts the scheduler and N of each worker in the background for $STOWAGE_HOME (default ~/.stowage).
# One pid file per process in $STOWAGE_HOME/run/*.pid, logs in $STOWAGE_HOME/logs/. Returns when ready.
# Usage: Deploy/start.sh [--workers N]
cd "$(dirname "$0")/.."
source Deploy/lib.sh

workers=1
while [ $# -gt 0 ]; do
  case "$1" in
    --workers) workers="${2:?--workers needs a number}"; shift 2 ;;
    --workers=*) workers="${1#*=}"; shift ;;
    -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
    *) echo "unknown option: $1 (usage: Deploy/start.sh [--workers N])" >&2; exit 2 ;;
  esac
done
[[ "$workers" =~ ^[1-9][0-9]*$ ]] || { echo "--workers must be a positive number" >&2; exit 2; }

bin_path
[ -x "$BIN/stowage-scheduler" ] || build
mkdir -p "$STOWAGE_HOME/run" "$STOWAGE_HOME/logs"
chmod 700 "$STOWAGE_HOME/run"

start() { # name, executable, args...
  local name="$1"; shift
  local pidfile="$STOWAGE_HOME/run/$name.pid"
  if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    log "$name already running (pid $(cat "$pidfile"))"
    return
  fi
  nohup "$@" >>"$STOWAGE_HOME/logs/$name.log" 2>&1 &
  echo $! >"$pidfile"
}

start scheduler "$BIN/stowage-scheduler" --home "$STOWAGE_HOME"
for i in $(seq 1 "$workers"); do
  start "license-worker-$i" "$BIN/stowage-license-worker" --home "$STOWAGE_HOME"
  start "download-worker-$i" "$BIN/stowage-download-worker" --home "$STOWAGE_HOME"
  start "integrity-worker-$i" "$BIN/stowage-integrity-worker" --home "$STOWAGE_HOME"
done

want=$((workers * 3))
for _ in $(seq 1 100); do
  n=$("$BIN/stowctl" workers --json --home "$STOWAGE_HOME" 2>/dev/null | grep -c '"alive" : true' || true)
  if [ "$n" -ge "$want" ]; then
    log "ready: scheduler + $want workers for $STOWAGE_HOME"
    exit 0
  fi
  sleep 0.2
done
echo "the pipeline did not become ready in 20 s; see $STOWAGE_HOME/logs/" >&2
exit 1
