#!/usr/bin/env bash
# Installs what is missing and runs the whole test suite (unit + multi-process integration tests), one
# test at a time: the integration tests start whole pipelines and measure limits at the origin.
cd "$(dirname "$0")/.."
source Deploy/lib.sh

ensure_packages iproute2 faketime chromium
log "checking the format (Deploy/lint.sh)"
bash Deploy/lint.sh
build
export STOWAGE_BIN="$BIN"
ensure_shaka_packager >/dev/null  # exports SHAKA_PACKAGER for the real-packager tests
log "running tests"
swift test -c "$STOWAGE_CONFIGURATION" --no-parallel 2>&1 | tee /tmp/stowage-test-output.txt | grep -vE '^\[[0-9]+/[0-9]+\] (Compiling|Emitting|Linking|Write|Build|Planning)'
exit "${PIPESTATUS[0]}"
