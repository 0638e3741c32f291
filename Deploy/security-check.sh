#!/usr/bin/env bash
# Scores the hardening of every systemd unit in Deploy/systemd/ with `systemd-analyze security --offline=yes`
# (the unit files as they are, nothing installed or running): prints each unit's exposure (0 = locked down,
# 10 = fully exposed) and fails if any is above the threshold (default 2.5; STOWAGE_MAX_EXPOSURE overrides),
# or if `systemd-analyze verify` finds a key it does not know (a misspelt option is ignored by systemd, silently
# dropping the protection it meant).
# Usage: Deploy/security-check.sh [UNIT_FILE...]   (exit 0 ok, 1 a unit is too exposed, 2 cannot check)
cd "$(dirname "$0")/.."
set -uo pipefail
max="${STOWAGE_MAX_EXPOSURE:-2.5}"
command -v systemd-analyze >/dev/null || { echo "systemd-analyze is missing (apt-get install systemd)" >&2; exit 2; }
units=("$@")
[ ${#units[@]} -gt 0 ] || units=(Deploy/systemd/*.service)
status=0
for unit in "${units[@]}"; do
  [ -f "$unit" ] || { echo "$unit: no such unit file" >&2; status=2; continue; }
  unknown=$(systemd-analyze verify --man=no "$unit" 2>&1 | grep -E "Unknown (key|section)|Invalid|Failed to parse")
  if [ -n "$unknown" ]; then
    echo "$(basename "$unit"): systemd does not understand some lines (they would be ignored):"
    printf '%s\n' "$unknown" | awk '{ print "  " $0 }'
    [ "$status" -eq 0 ] && status=1
  fi
  report=$(systemd-analyze security --offline=yes --no-pager "$unit" 2>&1)
  exposure=$(printf '%s\n' "$report" | sed -n 's/^→ Overall exposure level for .*: \([0-9.]*\).*/\1/p' | tail -1)
  if [ -z "$exposure" ]; then
    printf '%s\n' "$report" | tail -5 >&2
    echo "$unit: systemd-analyze gave no exposure level (is it systemd 250 or later, with --offline?)" >&2
    status=2
    continue
  fi
  if awk -v e="$exposure" -v m="$max" 'BEGIN { exit !(e > m) }'; then
    echo "$(basename "$unit"): exposure $exposure > $max: TOO EXPOSED; what counts most:"
    printf '%s\n' "$report" | grep '^✗' | awk '{ print $NF "\t  " $0 }' | sort -rn | cut -f2 | head -15
    [ "$status" -eq 0 ] && status=1
  else
    echo "$(basename "$unit"): exposure $exposure (<= $max) ok"
  fi
done
exit "$status"
