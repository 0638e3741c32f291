#!/usr/bin/env bash
# Installs Stowage as systemd services on this host: a release build into /usr/local/bin, a `stowage`
# user, the hardened units from Deploy/systemd/, (if absent) the env files /etc/stowage/{stowage,scheduler,
# worker,gateway}.env (mode 0600) and (if absent) CURVE keys by role: the scheduler's pair, a worker pair whose
# .pub goes to keys/allowed/worker/ and a gateway pair whose .pub goes to keys/allowed/gateway/ (workers and the
# gateway connect over CURVE even on this host: their units cannot reach the ipc socket). Run as root from the
# repository root; then edit the env files and enable what this host runs, e.g.
#   systemctl enable --now stowage-scheduler stowage-license-worker@1 stowage-download-worker@{1,2} stowage-integrity-worker@1
# (a worker-only host enables only workers, sets STOWAGE_SCHEDULER in worker.env and copies its worker.pub to the
# scheduler host's /etc/stowage/keys/allowed/worker/). Deploy/security-check.sh scores the units' hardening.
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
install -d -o stowage -g stowage -m 0700 /var/lib/stowage /var/lib/stowage/titles
install -d -m 0755 /etc/stowage
# The key folders belong to root: the service user reads its secret keys but cannot change who is allowed.
install -d -o root -g stowage -m 0750 /etc/stowage/keys
install -d -o root -g root -m 0755 /etc/stowage/keys/allowed \
  /etc/stowage/keys/allowed/worker /etc/stowage/keys/allowed/gateway /etc/stowage/keys/allowed/operator
# Env files are read by systemd (root) for the units: nobody else needs them, and they may hold secrets.
for env in stowage scheduler worker gateway; do
  [ -f "/etc/stowage/$env.env" ] || install -m 0600 "Deploy/systemd/$env.env" "/etc/stowage/$env.env"
  chmod 0600 "/etc/stowage/$env.env"
done
# Keys by role (kept if present). Each unit sees only its own secret key (InaccessiblePaths= hides the others).
for pair in scheduler:- worker:worker gateway:gateway; do
  name="${pair%%:*}" role="${pair#*:}"
  if [ ! -f "/etc/stowage/keys/$name.key" ]; then
    /usr/local/bin/stowctl keys generate "$name" --dir /etc/stowage/keys >/dev/null
    [ "$role" = - ] || cp "/etc/stowage/keys/$name.pub" "/etc/stowage/keys/allowed/$role/$name.pub"
  fi
done
chown root:root /etc/stowage/keys/*.pub /etc/stowage/keys/allowed/*/*.pub 2>/dev/null || true
chmod 0644 /etc/stowage/keys/*.pub /etc/stowage/keys/allowed/*/*.pub 2>/dev/null || true
chown stowage:stowage /etc/stowage/keys/*.key
chmod 0600 /etc/stowage/keys/*.key
install -m 0644 Deploy/systemd/*.service /etc/systemd/system/
systemctl daemon-reload 2>/dev/null || log "systemd is not running here: units installed, not loaded"
log "installed; edit /etc/stowage/stowage.env, then enable the units this host runs (see the top of this script)"
