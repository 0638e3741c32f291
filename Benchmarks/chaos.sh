#!/usr/bin/env bash
# The big chaos run: many titles through a fault-injecting origin while the scheduler and workers are
# killed and restarted. Usage: Benchmarks/chaos.sh [TITLES] [ROUNDS] [SECONDS_PER_TITLE]
cd "$(dirname "$0")/.."
source Deploy/lib.sh
ensure_packages
build
export STOWAGE_BIN="$BIN"
export STOWAGE_CHAOS_TITLES="${1:-40}" STOWAGE_CHAOS_ROUNDS="${2:-40}" STOWAGE_CHAOS_SECONDS="${3:-12}"
log "chaos: $STOWAGE_CHAOS_TITLES titles, $STOWAGE_CHAOS_ROUNDS kill rounds, ${STOWAGE_CHAOS_SECONDS}s per title"
swift test -c "$STOWAGE_CONFIGURATION" --filter Chaos 2>&1 | grep -E 'measure|✔|✘|error'
exit "${PIPESTATUS[0]}"
