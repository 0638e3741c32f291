#!/usr/bin/env bash
# Runs the built test suites: the unit and service tests as one job, then each integration suite as its own job,
# JOBS at a time (longest first), and prints the ten slowest tests. Each job is one process of the test binary, so a
# suite that traps or hangs fails alone, named, with its log kept.
#
#   bash Deploy/test-suites.sh                 # everything, 2 jobs at a time (STOWAGE_TEST_JOBS)
#   bash Deploy/test-suites.sh --jobs 1        # one suite at a time
#   bash Deploy/test-suites.sh Resumption Peer # only the integration suites whose name matches (and no unit job)
#
# Build first (`swift build --build-tests`; Deploy/test.sh does). Suites run in parallel are independent: each test
# makes its own home, ports, network namespace and origin.
cd "$(dirname "$0")/.."
set -uo pipefail

jobs="${STOWAGE_TEST_JOBS:-2}"
filters=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs="${2:-}"; shift 2 ;;
    --jobs=*) jobs="${1#--jobs=}"; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) filters+=("$1"); shift ;;
  esac
done
if ! [[ "$jobs" =~ ^[1-9][0-9]?$ ]]; then
  echo "test-suites: --jobs (or STOWAGE_TEST_JOBS) must be a number from 1 to 99, not '$jobs'" >&2
  exit 2
fi

bin="${BIN:-$(swift build -c "${STOWAGE_CONFIGURATION:-debug}" --show-bin-path)}"
xctest="$bin/StowagePackageTests.xctest"
[ -x "$xctest" ] || { echo "test-suites: $xctest is missing: run 'swift build --build-tests' first" >&2; exit 2; }
export STOWAGE_BIN="${STOWAGE_BIN:-$bin}" NO_COLOR=1
if [ -z "${SHAKA_PACKAGER:-}" ]; then  # the real-packager suites need it (installed once, under ~/.cache/stowage)
  source Deploy/lib.sh
  ensure_shaka_packager >/dev/null
  set +e
fi

logs="${TMPDIR:-/tmp}/stowage-tests-$(date +%Y%m%d-%H%M%S)-$$"
mkdir -p "$logs"
hints=Tests/suite-times.txt
[ -f "$bin/stowage-test-times.txt" ] && hints="$bin/stowage-test-times.txt"

# The integration suites the binary holds, and the jobs: "SECONDS NAME" (the hint, 60 when unknown).
mapfile -t suites < <("$xctest" --testing-library swift-testing --list-tests 2>/dev/null |
  sed -n 's|^IntegrationTests\.\([A-Za-z0-9_]*\)/.*|\1|p' | sort -u)
[ "${#suites[@]}" -gt 0 ] || { echo "test-suites: the test binary lists no integration suite" >&2; exit 2; }
hint() { awk -v n="$1" '$2 == n { print $1; found = 1; exit } END { if (!found) print 60 }' "$hints"; }
together=()
[ "${#filters[@]}" -eq 0 ] && together+=("$(hint unit) unit")
for s in "${suites[@]}"; do
  if [ "${#filters[@]}" -gt 0 ]; then
    matched=no
    for f in "${filters[@]}"; do [[ "$s" == *"$f"* ]] && matched=yes; done
    [ "$matched" = yes ] || continue
  fi
  together+=("$(hint "$s") $s")
done

# One job: the test binary on one suite (or on everything but the integration suites), its log in $logs/NAME.log,
# its exit status and seconds in $logs/NAME.result. A job that runs over 20 minutes is stopped as hung.
run_job() {
  local name="$1" start end rc filter
  start=$(date +%s)
  if [ "$name" = unit ]; then filter=(--skip 'IntegrationTests\.'); else filter=(--filter "IntegrationTests\\.$name/"); fi
  timeout --kill-after=30 1200 "$xctest" --testing-library swift-testing --no-parallel "${filter[@]}" \
    >"$logs/$name.log" 2>&1
  rc=$?
  end=$(date +%s)
  echo "$rc $((end - start))" >"$logs/$name.result"
  local tests
  tests=$(grep -oE 'Test run with [0-9]+ tests?' "$logs/$name.log" | grep -oE '[0-9]+' | tail -1)
  if [ "$rc" -eq 0 ]; then
    printf '  ✔ %-44s %4d s  %s tests\n' "$name" "$((end - start))" "${tests:-?}"
  elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    printf '  ✘ %-44s %4d s  HUNG: stopped after 20 minutes (%s)\n' "$name" "$((end - start))" "$logs/$name.log"
  else
    printf '  ✘ %-44s %4d s  FAILED (exit %d, %s)\n' "$name" "$((end - start))" "$rc" "$logs/$name.log"
  fi
}
export -f run_job
export xctest logs

began=$(date +%s)
echo "==> ${#together[@]} jobs, $jobs at a time; logs in $logs" >&2
printf '%s\n' "${together[@]}" | sort -rn | cut -d' ' -f2 | xargs -P "$jobs" -I{} bash -c 'run_job "$1"' _ {}
took=$(($(date +%s) - began))

# Everything in one file (CI keeps it), the new timing hints, the ten slowest tests, and the verdict.
failed=() total=0
: >"$logs/all.txt"
for result in "$logs"/*.result; do
  name=$(basename "$result" .result)
  read -r rc seconds <"$result"
  [ "$rc" -eq 0 ] || failed+=("$name")
  echo "$seconds $name" >>"$logs/times.txt"
  { echo "=== $name (exit $rc, $seconds s)"; cat "$logs/$name.log"; } >>"$logs/all.txt"
  n=$(grep -oE 'Test run with [0-9]+ tests?' "$logs/$name.log" | grep -oE '[0-9]+' | tail -1)
  total=$((total + ${n:-0}))
done
cp "$logs/all.txt" "${TMPDIR:-/tmp}/stowage-test-output.txt" 2>/dev/null || true
[ "${#filters[@]}" -eq 0 ] && [ "${#failed[@]}" -eq 0 ] && sort -rn "$logs/times.txt" >"$bin/stowage-test-times.txt"

echo
echo "The ten slowest tests:"
for log in "$logs"/*.log; do
  grep -v 'Test run with' "$log" |
    sed -nE "s/^.*Test (.*) passed after ([0-9.]+) seconds.*$/\2 $(basename "$log" .log).\1/p"
done | sort -rn | head -10 | awk '{ printf "  %7.1f s  %s\n", $1, substr($0, index($0, " ") + 1) }'
echo
if [ "${#failed[@]}" -gt 0 ]; then
  for name in "${failed[@]}"; do
    echo "--- $name: what failed ($logs/$name.log)"
    grep -E -A6 '✘|recorded an issue|Fatal error|Crash|HUNG' "$logs/$name.log" | head -80
  done
  echo "✘ ${#failed[@]} of ${#together[@]} jobs failed (${failed[*]}); $total tests ran in $took s"
  exit 1
fi
echo "✔ $total tests in ${#together[@]} jobs passed in $took s ($jobs at a time)"
