# Shared by the Deploy scripts. Source it from the repository root.
set -euo pipefail

STOWAGE_CONFIGURATION="${STOWAGE_CONFIGURATION:-debug}"
export STOWAGE_HOME="${STOWAGE_HOME:-$HOME/.stowage}"

log() { printf '\033[1m==>\033[0m %s\n' "$*" >&2; }

# Installs the Debian packages Stowage needs when they are missing (libzmq for the message plane,
# ffmpeg to make sample media and prove offline copies, sqlite3 for operators).
ensure_packages() {
  local missing=()
  for p in libzmq3-dev ffmpeg sqlite3 openssl curl "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  command -v swift >/dev/null || { echo "swift is not on PATH: install the Swift 6 toolchain first" >&2; exit 1; }
}

build() {
  log "building ($STOWAGE_CONFIGURATION)"
  swift build -c "$STOWAGE_CONFIGURATION" >&2
  BIN="$(swift build -c "$STOWAGE_CONFIGURATION" --show-bin-path)"
  export BIN
}

bin_path() {
  BIN="${BIN:-$(swift build -c "$STOWAGE_CONFIGURATION" --show-bin-path)}"
  export BIN
}
