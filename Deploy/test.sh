#!/usr/bin/env bash
# Installs what is missing, builds the executables and the tests, and runs the whole test suite: the unit and service
# tests, then the multi-process integration suites, STOWAGE_TEST_JOBS (default 2) at a time
# (Deploy/test-suites.sh; `--jobs 1` runs one suite at a time). Prints the ten slowest tests at the end.
cd "$(dirname "$0")/.."
source Deploy/lib.sh

ensure_packages iproute2 faketime postgresql chromium zbar-tools mpv gstreamer1.0-tools gstreamer1.0-plugins-base \
  gstreamer1.0-plugins-base-apps gstreamer1.0-plugins-good gstreamer1.0-libav
log "checking the format (Deploy/lint.sh)"
bash Deploy/lint.sh
log "building the executables and the tests ($STOWAGE_CONFIGURATION)"
buildlog="${TMPDIR:-/tmp}/stowage-build.log"
if ! swift build -c "$STOWAGE_CONFIGURATION" --build-tests >"$buildlog" 2>&1; then
  grep -vE '^\[[0-9]+/[0-9]+\] ' "$buildlog" | tail -60 >&2
  log "the build failed (the whole output: $buildlog)"
  exit 1
fi
bin_path
ensure_shaka_packager >/dev/null  # exports SHAKA_PACKAGER for the real-packager tests
log "running tests"
exec bash Deploy/test-suites.sh "$@"
