# The `bundle` section of Benchmarks/run.sh (sourced by it; uses its say, target, hwm_mb, start_pipeline, ...).
#
# Issue #33's done-when: "a 1 GiB title exported and imported with the process's peak RSS under 100 MB". Export and
# import run in the scheduler process (a copying thread beside its loop), so this measures the real processes: the
# large section's title (>= 1 GiB, 510 segments) downloaded by a pipeline in home A, then a scheduler of A alone
# (started afresh, so its peak is the export's) runs `stowctl export TOKEN DIR`, and a scheduler of home B alone runs
# `stowctl import DIR --trust A's key`. Prints each command's seconds and MB/s and each scheduler's peak RSS
# (VmHWM from /proc/PID/status), and that peak before the command; targets: both peaks <= 100 MB.
bundle() {
  make_big_media
  local media="$W/media/big" a="$W/home-bundle-a" b="$W/home-bundle-b" dir="$W/bundle-out"
  local url="$ORIGIN/big/index.m3u8"
  say ""
  say "== bundle: export and import of a $(($(du -cb "$media"/*.ts | tail -1 | cut -f1) / 1048576)) MiB title between two homes"
  start_pipeline "$a" --titles 1 --per-title 16 --per-host 16
  local token
  token=$("$BIN/stowctl" submit "$url" --wait 2>/dev/null | tail -n 1) || { echo "download failed; logs in $a" >&2; exit 1; }
  "$BIN/stowctl" box key >"$W/box-a.pub"
  stop_pipeline
  local bytes; bytes=$(du -sb "$a/titles/$token" | cut -f1)

  # Export: a fresh scheduler of A, no workers; its peak RSS is the export's.
  NO_WORKERS=1 start_pipeline_kept "$a"
  discard "$dir"
  local t0 t1 export_s export_hwm import_s import_hwm export_idle import_idle
  export_idle=$(hwm_mb "${PIDS[0]}")
  t0=$(now)
  "$BIN/stowctl" export "$token" "$dir" >/dev/null 2>&1 || { echo "export failed; logs in $a" >&2; exit 1; }
  t1=$(now)
  export_s=$(echo "$t1 - $t0" | bc)
  export_hwm=$(hwm_mb "${PIDS[0]}")
  stop_pipeline
  discard "$a"

  # Import: a fresh home B, its scheduler alone, trusting A's key.
  NO_WORKERS=1 start_pipeline "$b"
  until "$BIN/stowctl" stats >/dev/null 2>&1; do sleep 0.05; done
  import_idle=$(hwm_mb "${PIDS[0]}")
  t0=$(now)
  # The importing box gives the title a token of its own (docs/bundles.md): the last line of stdout.
  local imported
  imported=$("$BIN/stowctl" import "$dir" --trust "$W/box-a.pub" 2>/dev/null | tail -n 1) \
    || { echo "import failed; logs in $b" >&2; exit 1; }
  t1=$(now)
  import_s=$(echo "$t1 - $t0" | bc)
  import_hwm=$(hwm_mb "${PIDS[0]}")
  local state; state=$("$BIN/stowctl" status "$imported" --json | grep -o '"state" *: *"[a-z]*"' | grep -o '[a-z]*"$' | tr -d '"')
  stop_pipeline
  say "$(printf '%-44s %8s %10s %16s' step seconds 'MB/s' 'scheduler peak')"
  say "$(printf '%-44s %8.2f %10.1f %13s MB' "export ($((bytes / 1048576)) MiB, signed, hashed as read)" "$export_s" \
    "$(echo "$bytes / 1048576 / $export_s" | bc -l)" "$export_hwm")"
  say "$(printf '%-44s %8.2f %10.1f %13s MB' "import (checked, hashed, copied, registered)" "$import_s" \
    "$(echo "$bytes / 1048576 / $import_s" | bc -l)" "$import_hwm")"
  say "scheduler peak before the command (started, answering): export $export_idle MB, import $import_idle MB"
  say "imported title: $state"
  [ "$state" = completed ] || { echo "the imported title is $state, not completed; logs in $b" >&2; exit 1; }
  target "bundle: exporting scheduler peak RSS (MB)" "$export_hwm" "<=" 100
  target "bundle: importing scheduler peak RSS (MB)" "$import_hwm" "<=" 100
  discard "$b" "$dir"
}

# start_pipeline without emptying the home first (the title downloaded there is what is exported).
start_pipeline_kept() {
  local home="$1"; shift
  export STOWAGE_HOME="$home"
  "$BIN/stowage-scheduler" --disk-cushion 0 "$@" 2>>"$home/scheduler.log" & PIDS=($!)
  until "$BIN/stowctl" stats >/dev/null 2>&1; do sleep 0.05; done
}
