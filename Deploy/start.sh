#!/usr/bin/env bash
# Starts the scheduler and N of each worker in the background for $STOWAGE_HOME (default ~/.stowage).
# One pid file per process in $STOWAGE_HOME/run/*.pid, logs in $STOWAGE_HOME/logs/. Returns when ready.
# Usage: Deploy/start.sh [--workers N] [--gateway HOST:PORT [--admin-secret FILE]]  (see docs/gateway.md)
# A process that exits while starting: its last log lines are printed, what this run started is stopped, exit 1.
cd "$(dirname "$0")/.."
source Deploy/lib.sh

options="$*"   # as given, to show how to restart with them
usage="usage: Deploy/start.sh [--workers N] [--gateway HOST:PORT [--admin-secret FILE]]"
workers=1
gateway=""
admin_secret=""
while [ $# -gt 0 ]; do
  case "$1" in
    --gateway) gateway="${2:?--gateway needs HOST:PORT}"; shift 2 ;;
    --gateway=*) gateway="${1#*=}"; shift ;;
    --admin-secret) admin_secret="${2:?--admin-secret needs a FILE holding the admin secret}"; shift 2 ;;
    --admin-secret=*) admin_secret="${1#*=}"; shift ;;
    --workers) workers="${2:?--workers needs a number}"; shift 2 ;;
    --workers=*) workers="${1#*=}"; shift ;;
    -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
    *) echo "unknown option: $1 ($usage)" >&2; exit 2 ;;
  esac
done
[[ "$workers" =~ ^[1-9][0-9]*$ ]] || { echo "--workers must be a positive number" >&2; exit 2; }
if [ -n "$gateway" ] && ! [[ "$gateway" =~ ^[^:]+:[0-9]+$ ]]; then
  echo "--gateway takes HOST:PORT, e.g. 0.0.0.0:8480" >&2; exit 2
fi
if [ -n "$admin_secret" ]; then
  [ -n "$gateway" ] || { echo "--admin-secret is the gateway's: give --gateway HOST:PORT too" >&2; exit 2; }
  [ -f "$admin_secret" ] && [ -r "$admin_secret" ] || {
    echo "--admin-secret $admin_secret: not a readable file (it holds the admin's secret, one line)" >&2; exit 2
  }
  admin_secret="$(realpath -- "$admin_secret")"   # the gateway runs with the same cwd, but say the file plainly
fi

bin_path || exit 1
[ -x "$BIN/stowage-scheduler" ] || build
mkdir -p "$STOWAGE_HOME/run" "$STOWAGE_HOME/logs"
chmod 700 "$STOWAGE_HOME/run"

# A gateway already running keeps its options: asked for others, say what runs and how to restart, before
# starting anything.
if [ -n "$gateway" ] && pid_status "$STOWAGE_HOME/run/gateway.pid" "$BIN/stowage-gateway"; then
  running_listen="$(process_option "$PID_STATUS_PID" --listen)"
  running_secret="$(process_option "$PID_STATUS_PID" --admin-secret)"
  if [ "$running_listen" != "$gateway" ] || [ "$running_secret" != "$admin_secret" ]; then
    echo "stowage-gateway is already running (pid $PID_STATUS_PID) with --listen ${running_listen:-(default)}" \
      "${running_secret:+--admin-secret $running_secret }(a running process keeps its options); to restart it" \
      "with these: Deploy/stop.sh, then Deploy/start.sh $options" >&2
    exit 1
  fi
fi

# Every process this start relies on (name, pid, executable, log offset), and which of them it started itself:
# only those are stopped when the start fails.
names=()
pids=()
exes=()
offsets=()
ours=()
start() { # name, executable, args...
  local name="$1"; shift
  local pidfile="$STOWAGE_HOME/run/$name.pid" logfile="$STOWAGE_HOME/logs/$name.log"
  local offset=0
  if pid_status "$pidfile" "$1"; then
    log "$name already running (pid $PID_STATUS_PID); it keeps its options (to change them: Deploy/stop.sh, then" \
      "Deploy/start.sh with them)"
    ours+=(0)
  else
    # A pid file whose process died, became a zombie or whose pid now belongs to another program.
    if [ -e "$pidfile" ]; then
      log "$name: stale pid file ($PID_STATUS_WHY); starting it again"
      rm -f "$pidfile"
    fi
    [ -f "$logfile" ] && offset="$(stat -c %s "$logfile")"
    nohup "$@" >>"$logfile" 2>&1 &
    PID_STATUS_PID=$!
    echo "$PID_STATUS_PID" >"$pidfile"
    ours+=(1)
  fi
  names+=("$name")
  pids+=("$PID_STATUS_PID")
  exes+=("$1")
  offsets+=("$offset")
}

# Stops what this run started (not what ran before it), removes their pid files, exits 1.
fail() {
  local i
  STOP_PIDS=()
  STOP_EXES=()
  for i in "${!names[@]}"; do
    [ "${ours[$i]}" = 1 ] || continue
    STOP_PIDS+=("${pids[$i]}")
    STOP_EXES+=("${exes[$i]}")
    rm -f "$STOWAGE_HOME/run/${names[$i]}.pid"
  done
  STOP_WAIT=10 stop_processes
  echo "stopped the ${#STOP_PIDS[@]} processes this start began; nothing else was touched" >&2
  exit 1
}

# Exits through fail() when a process of the start has exited, printing the last lines it logged in this run.
check_alive() {
  local i logfile
  for i in "${!names[@]}"; do
    process_status "${pids[$i]}" "${exes[$i]}" && continue
    logfile="$STOWAGE_HOME/logs/${names[$i]}.log"
    echo "${names[$i]} (pid ${pids[$i]}) exited while starting; the last lines of $logfile:" >&2
    { tail -c +"$((${offsets[$i]} + 1))" "$logfile" 2>/dev/null || true; } | tail -n 20 | sed 's/^/    /' >&2
    fail
  done
}

start scheduler "$BIN/stowage-scheduler" --home "$STOWAGE_HOME"
for i in $(seq 1 "$workers"); do
  start "license-worker-$i" "$BIN/stowage-license-worker" --home "$STOWAGE_HOME"
  start "download-worker-$i" "$BIN/stowage-download-worker" --home "$STOWAGE_HOME"
  start "integrity-worker-$i" "$BIN/stowage-integrity-worker" --home "$STOWAGE_HOME"
done
if [ -n "$gateway" ]; then
  start gateway "$BIN/stowage-gateway" --home "$STOWAGE_HOME" --listen "$gateway" \
    ${admin_secret:+--admin-secret "$admin_secret"}
fi

# Ready when every worker is registered and alive, and a gateway of ours says "listening". Counted by pid: a
# worker just killed is still listed as alive until its heartbeats time out, and must not stand in for the one
# started in its place. Each round checks every process (a death is seen within 2 s: `stowctl` answers at once
# when no scheduler listens, and is given at most 1.5 s), then waits 0.2 s.
deadline=$(($(uptime_centiseconds) + ${STOWAGE_START_TIMEOUT:-60} * 100))
while :; do
  check_alive
  ready=1
  alive=" $(alive_worker_pids 1.5 | tr '\n' ' ') "
  for i in "${!names[@]}"; do
    case "${names[$i]}" in
      scheduler) ;;
      gateway)
        if [ "${ours[$i]}" = 1 ]; then
          said="$(tail -c +"$((${offsets[$i]} + 1))" "$STOWAGE_HOME/logs/gateway.log" 2>/dev/null || true)"
          [[ "$said" == *listening* ]] || ready=0
        fi ;;
      *) [[ "$alive" == *" ${pids[$i]} "* ]] || ready=0 ;;
    esac
  done
  if [ "$ready" = 1 ]; then
    log "ready: scheduler + $((workers * 3)) workers${gateway:+ + gateway on $gateway} for $STOWAGE_HOME"
    exit 0
  fi
  if [ "$(uptime_centiseconds)" -ge "$deadline" ]; then
    echo "the pipeline did not become ready in ${STOWAGE_START_TIMEOUT:-60} s (every process still runs; see" \
      "$STOWAGE_HOME/logs/)" >&2
    fail
  fi
  sleep 0.2
done
