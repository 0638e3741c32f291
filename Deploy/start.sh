#!/usr/bin/env bash
# Starts the scheduler and N of each worker in the background for $STOWAGE_HOME (default ~/.stowage).
# One pid file per process in $STOWAGE_HOME/run/*.pid, logs in $STOWAGE_HOME/logs/. Returns when ready.
# Usage: Deploy/start.sh [--workers N] [--gateway HOST:PORT]  (the gateway serves the LAN: see docs/gateway.md)
cd "$(dirname "$0")/.."
source Deploy/lib.sh

workers=1
gateway=""
while [ $# -gt 0 ]; do
  case "$1" in
    --gateway) gateway="${2:?--gateway needs HOST:PORT}"; shift 2 ;;
    --gateway=*) gateway="${1#*=}"; shift ;;
    --workers) workers="${2:?--workers needs a number}"; shift 2 ;;
    --workers=*) workers="${1#*=}"; shift ;;
    -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
    *) echo "unknown option: $1 (usage: Deploy/start.sh [--workers N] [--gateway HOST:PORT])" >&2; exit 2 ;;
  esac
done
[[ "$workers" =~ ^[1-9][0-9]*$ ]] || { echo "--workers must be a positive number" >&2; exit 2; }
if [ -n "$gateway" ] && ! [[ "$gateway" =~ ^[^:]+:[0-9]+$ ]]; then
  echo "--gateway takes HOST:PORT, e.g. 0.0.0.0:8480" >&2; exit 2
fi

bin_path
[ -x "$BIN/stowage-scheduler" ] || build
mkdir -p "$STOWAGE_HOME/run" "$STOWAGE_HOME/logs"
chmod 700 "$STOWAGE_HOME/run"

worker_pids=()
start() { # name, executable, args...
  local name="$1"; shift
  local pidfile="$STOWAGE_HOME/run/$name.pid"
  if pid_status "$pidfile" "$1"; then
    log "$name already running (pid $PID_STATUS_PID)"
  else
    # A pid file whose process died, became a zombie or whose pid now belongs to another program.
    if [ -e "$pidfile" ]; then
      log "$name: stale pid file ($PID_STATUS_WHY); starting it again"
      rm -f "$pidfile"
    fi
    nohup "$@" >>"$STOWAGE_HOME/logs/$name.log" 2>&1 &
    PID_STATUS_PID=$!
    echo "$PID_STATUS_PID" >"$pidfile"
  fi
  [ "$name" = scheduler ] || worker_pids+=("$PID_STATUS_PID")
}

start scheduler "$BIN/stowage-scheduler" --home "$STOWAGE_HOME"
for i in $(seq 1 "$workers"); do
  start "license-worker-$i" "$BIN/stowage-license-worker" --home "$STOWAGE_HOME"
  start "download-worker-$i" "$BIN/stowage-download-worker" --home "$STOWAGE_HOME"
  start "integrity-worker-$i" "$BIN/stowage-integrity-worker" --home "$STOWAGE_HOME"
done

if [ -n "$gateway" ]; then
  start gateway "$BIN/stowage-gateway" --home "$STOWAGE_HOME" --listen "$gateway"
  gateway_pid=$PID_STATUS_PID
  unset 'worker_pids[-1]'  # the gateway is not a worker: readiness is its "listening" line
  for _ in $(seq 1 100); do
    grep -q "listening" "$STOWAGE_HOME/logs/gateway.log" 2>/dev/null && break
    kill -0 "$gateway_pid" 2>/dev/null || { echo "stowage-gateway exited; see $STOWAGE_HOME/logs/gateway.log" >&2; exit 1; }
    sleep 0.2
  done
fi

# Ready when every worker of ours is registered and alive. Counted by pid: a worker just killed is still listed
# as alive until its heartbeats time out, and must not stand in for the one started in its place.
want=${#worker_pids[@]}
for _ in $(seq 1 100); do
  alive=" $(alive_worker_pids | tr '\n' ' ')"
  n=0
  for pid in "${worker_pids[@]}"; do
    if [[ "$alive" == *" $pid "* ]]; then n=$((n + 1)); fi
  done
  if [ "$n" -ge "$want" ]; then
    log "ready: scheduler + $want workers for $STOWAGE_HOME"
    exit 0
  fi
  sleep 0.2
done
echo "the pipeline did not become ready in 20 s; see $STOWAGE_HOME/logs/" >&2
exit 1
