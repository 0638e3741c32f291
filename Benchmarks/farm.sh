# The `farm` section of Benchmarks/run.sh (sourced by it; uses its say, target, scale, start_pipeline, ...):
# the store on PostgreSQL beside the embedded SQLite, and the time a standby scheduler takes to lead.
#
#   STOWAGE_BENCH_ONLY=farm Benchmarks/run.sh
#
# A private PostgreSQL (Debian's `postgresql`, installed when missing) runs in $W/pg on a loopback port as the
# `postgres` user, trust authentication on loopback only; it is stopped when the script ends.
# Prints, for each engine: submissions/s, `list` of STOWAGE_BENCH_TITLES titles, recovery after kill -9 (the scale
# section), then the takeover time of two schedulers on the PostgreSQL store (kill -9 of the leader until the
# standby answers as leader), median of STOWAGE_BENCH_TAKEOVERS (5): once with both on this host (the standby sees
# the leader's process is gone and claims at once) and once with the leader in a UTS namespace of its own (another
# host name: the standby waits for the lease to run out, as it would for a leader on another host).

PG_PORT="${STOWAGE_BENCH_PG_PORT:-55433}"
PG_DIR="$W/pg"

pg_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && { echo "$d"; return; }; done
  command -v initdb >/dev/null && dirname "$(command -v initdb)" && return
  echo "no initdb: install Debian's postgresql" >&2; return 1
}

start_postgres() {
  ensure_packages postgresql
  local bin; bin=$(pg_bin)
  id postgres >/dev/null 2>&1 || { echo "no postgres user (Debian's postgresql makes it)" >&2; return 1; }
  rm -rf "$PG_DIR"; mkdir -p "$PG_DIR"; chown postgres "$PG_DIR"
  runuser -u postgres -- "$bin/initdb" -D "$PG_DIR/data" -A trust -U stowage >"$W/pg-init.log" 2>&1
  runuser -u postgres -- "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=on" start >/dev/null
  PG_STARTED="$bin"
}

# Stops the private server (run.sh's EXIT trap calls it too).
stop_postgres() {
  [ -n "${PG_STARTED:-}" ] || return 0
  runuser -u postgres -- "$PG_STARTED/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
  PG_STARTED=""
}

# A fresh database for one measurement; prints its store URL.
fresh_database() {
  local name="$1"
  psql -h 127.0.0.1 -p "$PG_PORT" -U stowage -d postgres -qc "DROP DATABASE IF EXISTS $name" >/dev/null
  psql -h 127.0.0.1 -p "$PG_PORT" -U stowage -d postgres -qc "CREATE DATABASE $name" >/dev/null
  echo "postgres://stowage@127.0.0.1:$PG_PORT/$name"
}

# Whether the scheduler at this ipc endpoint leads (its stats say so).
leads() {
  "$BIN/stowctl" stats --json --scheduler "$1" 2>/dev/null | grep -q '"leads" *: *true'
}

# One takeover: two schedulers on a fresh PostgreSQL store, the leader killed; prints the seconds until the standby
# leads. $1 = "host": the leader runs under another host name (its own UTS namespace).
takeover_once() {
  local url; url=$(fresh_database takeover)
  local a="$W/home-farm-a" b="$W/home-farm-b"
  discard "$a"; discard "$b"; mkdir -p "$a" "$b"
  local wrap=()
  [ "${1:-}" = host ] && wrap=(unshare --uts --fork sh -c 'hostname stowage-bench-other; exec "$0" "$@"')
  STOWAGE_HOME="$a" STOWAGE_STORE="$url" "${wrap[@]}" "$BIN/stowage-scheduler" --disk-cushion 0 \
    2>"$a/scheduler.log" & local pa=$!
  until leads "ipc://$a/run/scheduler.ipc"; do sleep 0.05; done
  STOWAGE_HOME="$b" STOWAGE_STORE="$url" "$BIN/stowage-scheduler" --disk-cushion 0 2>"$b/scheduler.log" & local pb=$!
  until grep -q "standby: claiming the lead" "$b/scheduler.log" 2>/dev/null; do sleep 0.05; done
  # The leader's process (unshare's child when wrapped) dies at once, without a word to the store.
  pkill -9 -P "$pa" 2>/dev/null || true; kill -9 "$pa"; wait "$pa" 2>/dev/null || true
  local t0 t1; t0=$(now)
  until leads "ipc://$b/run/scheduler.ipc"; do sleep 0.05; done
  t1=$(now)
  kill "$pb"; wait "$pb" 2>/dev/null || true
  echo "$t1 - $t0" | bc
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

farm() {
  say ""
  say "== farm: the store on SQLite and on PostgreSQL ($TITLES titles), and takeover"
  start_postgres
  # STOWAGE_BENCH_FARM_SCALE=0: only the takeover.
  if [ "${STOWAGE_BENCH_FARM_SCALE:-1}" != 0 ]; then
    say "-- SQLite (embedded)"
    unset STOWAGE_STORE
    scale
    say "-- PostgreSQL 127.0.0.1:$PG_PORT"
    STOWAGE_STORE=$(fresh_database scale)
    export STOWAGE_STORE
    scale
    unset STOWAGE_STORE
  fi
  local i where runs median
  for where in same host; do
    runs=()
    for i in $(seq "${STOWAGE_BENCH_TAKEOVERS:-5}"); do runs+=("$(takeover_once "$where")"); done
    median=$(printf '%s\n' "${runs[@]}" | median)
    say "$(printf 'takeover after kill -9 of the leader (%s, --leader-lease 10s): median %.2f s of %s' \
      "$([ "$where" = same ] && echo "same host" || echo "leader under another host name")" "$median" "${runs[*]}")"
    target "farm: takeover ($([ "$where" = same ] && echo "same host" || echo "another host name")), seconds (median)" "$median" "<=" 10
  done
  stop_postgres
}
