#!/usr/bin/env bash
# Checks the formatting of the whole tree: swift-format (the toolchain's, configured by .swift-format: 4 spaces,
# lines of at most 120 characters) must have nothing to change, and no Swift line may exceed 120 characters.
# Fix with: swift format -i -r Sources Tests Package.swift
cd "$(dirname "$0")/.."
set -euo pipefail
status=0
if ! swift format lint --strict -r Sources Tests Package.swift; then
  echo "swift-format: the files above are not formatted (run: swift format -i -r Sources Tests Package.swift)" >&2
  status=1
fi
long=$(find Sources Tests -name '*.swift' -print0 | xargs -0 awk 'length > 120 { printf "%s:%d: %d characters\n", FILENAME, FNR, length }')
if [ -n "$long" ]; then
  echo "$long" >&2
  echo "lines longer than 120 characters: $(echo "$long" | wc -l)" >&2
  status=1
fi
[ "$status" -eq 0 ] && echo "format: ok" >&2
exit "$status"
