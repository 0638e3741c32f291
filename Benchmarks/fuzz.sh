#!/usr/bin/env bash
# Runs each libFuzzer target (HLS playlists + planner, ZeroMQ frames + message bodies, MPDs + sidx + planner,
# peer manifests, bundles, catalogues, license terms, plans, data: URIs) for a fixed
# budget and prints executions, corpus size and crashes. Not part of CI's default run.
#
#   Benchmarks/fuzz.sh [SECONDS_PER_TARGET]     (default 60; or STOWAGE_FUZZ_SECONDS)
#   STOWAGE_FUZZ_TARGETS="mpd documents" Benchmarks/fuzz.sh 600     (some targets only)
#
# The working corpus grows in .build-fuzz/corpus-<target> (seeded from Tests/Fuzz/Corpus/<target>). A crasher
# is copied into Tests/Fuzz/Regressions/<target>/, which the test suite replays on every run: commit it
# with the fix. Exit status 1 if any target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no  # the backtracer reads the stack in ways AddressSanitizer reports
export LSAN_OPTIONS="suppressions=$PWD/Benchmarks/fuzz-leaks.supp"  # leaks in the toolchain's libraries
BUDGET="${1:-${STOWAGE_FUZZ_SECONDS:-60}}"
SCRATCH=.build-fuzz
FLAGS=(-c release --scratch-path "$SCRATCH" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING)
status=0
mkdir -p "$SCRATCH"
report=()
for target in ${STOWAGE_FUZZ_TARGETS:-playlist frames mpd documents}; do
  product="stowage-fuzz-$target"
  echo "==> building $product with -sanitize=fuzzer,address" >&2
  swift build "${FLAGS[@]}" --product "$product" >&2
  bin="$(swift build "${FLAGS[@]}" --show-bin-path)/$product"
  corpus="$SCRATCH/corpus-$target"
  artifacts="$SCRATCH/artifacts-$target"
  mkdir -p "$corpus" "$artifacts"
  cp -n Tests/Fuzz/Corpus/"$target"/* "$corpus"/ 2>/dev/null || true
  echo "==> fuzzing $target for ${BUDGET}s" >&2
  log="$SCRATCH/fuzz-$target.log"
  set +e
  "$bin" -max_total_time="$BUDGET" -print_final_stats=1 -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
  rc=$?
  set -e
  execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)"
  rate="$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)"
  size="$(find "$corpus" -type f | wc -l)"
  crashes=0
  for a in "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-*; do
    [ -e "$a" ] || continue
    crashes=$((crashes + 1))
    cp "$a" "Tests/Fuzz/Regressions/$target/"
  done
  if [ "$rc" -ne 0 ] || [ "$crashes" -gt 0 ]; then
    status=1
    echo "!! $target: libFuzzer exit $rc, $crashes artifact(s) copied to Tests/Fuzz/Regressions/$target/ (log: $log)" >&2
  fi
  report+=("$(printf '%-10s %8s %14s %10s %8s %s' "$target" "$BUDGET" "$execs" "$rate" "$size" "$crashes")")
done
printf '\n%-10s %8s %14s %10s %8s %s\n' target seconds executions exec/s corpus crashes
printf '%s\n' "${report[@]}"
exit "$status"
