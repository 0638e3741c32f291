#!/usr/bin/env bash
# Installs Stowage as systemd services on this host: a release build into /usr/local/bin, a `stowage`
# user, the units from Deploy/systemd/ and (if absent) /etc/stowage/stowage.env. Run as root from the
# repository root; then edit /etc/stowage/stowage.env and enable what this host runs, e.g.
#   systemctl enable --now stowage-scheduler stowage-license-worker@1 stowage-download-worker@{1,2} stowage-integrity-worker@1
# (a worker-only host enables only workers and sets STOWAGE_SCHEDULER / CURVE keys in the env file).
set -euo pipefail
cd "$(dirname "$0")/.."
STOWAGE_CONFIGURATION=release
source Deploy/lib.sh
[ "$(id -u)" -eq 0 ] || { echo "run as root" >&2; exit 1; }
ensure_packages
build
for exe in stowage-scheduler stowage-license-worker stowage-download-worker stowage-integrity-worker stowage-gateway stowctl \
  stowage-origin; do
  install -m 0755 "$BIN/$exe" /usr/local/bin/
done
id stowage >/dev/null 2>&1 || useradd --system --home-dir /var/lib/stowage --shell /usr/sbin/nologin stowage
install -d -o stowage -g stowage -m 0750 /var/lib/stowage
install -d -m 0755 /etc/stowage
install -d -o stowage -g stowage -m 0750 /etc/stowage/keys /etc/stowage/keys/allowed
[ -f /etc/stowage/stowage.env ] || install -m 0644 Deploy/systemd/stowage.env /etc/stowage/stowage.env
install -m 0644 Deploy/systemd/*.service /etc/systemd/system/
systemctl daemon-reload 2>/dev/null || log "systemd is not running here: units installed, not loaded"
log "installed; edit /etc/stowage/stowage.env, then enable the units this host runs (see the top of this script)"
