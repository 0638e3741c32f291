#!/usr/bin/env bash
# Stowage against the tools a user would otherwise pick, on one machine, in one run (not part of CI).
#
#   Benchmarks/run.sh            all sections
#   STOWAGE_BENCH_ONLY=large|small|scale|serve|bundle|farm Benchmarks/run.sh
#
# large: a >= 1 GB, >= 500-segment title (60 s encoded once with ffmpeg, then -stream_loop -c copy into HLS)
#        served by nginx on 127.0.0.1; Stowage (submit -> completed, every file verified) alternating with
#        aria2c -j16, curl --parallel, yt-dlp --concurrent-fragments 8 and ffmpeg -c copy, each repeated;
#        medians, ratios to Stowage, and the peak RSS (VmHWM) of every Stowage process.
# small: 10,000 segments of ~4 KB: segments/s for Stowage, aria2c and curl --parallel, alternating, medians.
# scale: 100,000 titles (STOWAGE_BENCH_TITLES) submitted to a scheduler (submissions/s), `stowctl list` time, scheduler RSS, and
#        the time until it answers again after kill -9.
# serve: the LAN gateway against nginx on a completed title (Benchmarks/serve.sh): 64 wrk clients, then 1,000 slow ones.
# farm: the scale section on the embedded SQLite and on a private PostgreSQL, then the takeover time of two schedulers
#        sharing the PostgreSQL store (Benchmarks/farm.sh), median of 5.
# bundle: the large title exported by one home's scheduler and imported by another's (Benchmarks/bundle.sh): seconds,
#        MB/s and each scheduler's peak RSS against the 100 MB target.
# Knobs: STOWAGE_BENCH_REPEAT (3), STOWAGE_BENCH_LOOPS (17 minutes of media), STOWAGE_BENCH_SMALL (10000),
#        STOWAGE_BENCH_TITLES (100000), STOWAGE_BENCH_PEERS ("aria2c curl yt-dlp ffmpeg"; "" = Stowage alone), STOWAGE_BENCH_DIR (/tmp/stowage-bench; media is kept between runs).
set -euo pipefail
cd "$(dirname "$0")/.."
STOWAGE_CONFIGURATION=release
source Deploy/lib.sh
REPEAT="${STOWAGE_BENCH_REPEAT:-3}"
LOOPS="${STOWAGE_BENCH_LOOPS:-17}"
SMALL="${STOWAGE_BENCH_SMALL:-10000}"
TITLES="${STOWAGE_BENCH_TITLES:-100000}"
ONLY="${STOWAGE_BENCH_ONLY:-large small scale}"
PEERS="${STOWAGE_BENCH_PEERS-aria2c curl yt-dlp ffmpeg}"
W="${STOWAGE_BENCH_DIR:-/tmp/stowage-bench}"
mkdir -p "$W"
RESULTS="$W/results.txt"
: >"$RESULTS"
say() { printf '%s\n' "$*" | tee -a "$RESULTS"; }

ensure_packages nginx-light aria2 python3-venv time bc wrk
VENV="$W/venv"
# Only the large (yt-dlp) and scale (pyzmq) sections need the venv.
if [[ " $ONLY " =~ " large "|" scale "|" farm " ]] &&
  { [ ! -x "$VENV/bin/yt-dlp" ] || ! "$VENV/bin/python" -c 'import zmq, Cryptodome' 2>/dev/null; }; then
  log "installing yt-dlp, pycryptodomex and pyzmq into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q yt-dlp pycryptodomex pyzmq >&2
fi
# STOWAGE_BENCH_BIN: use the binaries already built there (no build), e.g. a release folder built apart.
if [ -n "${STOWAGE_BENCH_BIN:-}" ]; then
  BIN="$STOWAGE_BENCH_BIN"
  build() { export BIN; }
fi
bin_path
before_build=$(stat -c %Y "$BIN/stowctl" 2>/dev/null || echo 0)
build
# A build that compiled anything created and deleted thousands of temporary files (see settle, below).
[ "$(stat -c %Y "$BIN/stowctl" 2>/dev/null || echo 0)" != "$before_build" ] && date +%s >"$W/last-mass-delete"
now() { date +%s.%N; }
# Output of a finished run is moved aside, not deleted, until the script ends: on ext4 the inode allocator skips
# inodes deleted in the last minute or more (without a journal it reads the inode table to find them), so a mass
# deletion right before a timed run would make that run pay for the one before it. Then (untimed) the page cache
# is written back and, as root, emptied and filled with the media again: every run starts from the same state,
# not with another's dirty pages or with memory full of the kept output.
# A trash left by a run that was killed is deleted with this run's, at the end, not before the timed runs.
TRASH="$W/trash"
mkdir -p "$TRASH"
discard() {
  for d in "$@"; do [ -e "$d" ] && mv "$d" "$TRASH/$(date +%s%N)-$(basename "$d")"; done
  sync
  if [ "$(id -u)" -eq 0 ]; then
    echo 1 >/proc/sys/vm/drop_caches
    find "$W/media" -type f -exec cat {} + >/dev/null 2>&1 || true
  fi
}
# settle: the same allocator keeps skipping recently deleted inodes for up to 6 minutes (60 s, plus 300 s while
# their inode table block is dirty), scanning from the start of the group for every new file; creating thousands
# of files in that window costs every tool several times its CPU, and Stowage's unnamed files more than curl's.
# The small-file section therefore starts at least STOWAGE_BENCH_SETTLE seconds (360) after this script's last
# mass deletion (the end of an earlier run, a build that compiled); other deletions on the machine are not seen.
SETTLE="${STOWAGE_BENCH_SETTLE:-360}"
settle() {
  local last left
  last=$(cat "$W/last-mass-delete" 2>/dev/null || echo 0)
  left=$((last + SETTLE - $(date +%s)))
  if [ "$left" -gt 0 ]; then
    log "waiting ${left}s for ext4 to stop skipping the inodes deleted at $(date -d "@$last" +%T) (STOWAGE_BENCH_SETTLE)"
    sleep "$left"
  fi
}
# target LABEL VALUE (<=|>=) LIMIT: records whether a figure meets the issue's target (printed at the end).
TARGETS="$W/targets.txt"
: >"$TARGETS"
target() {
  local ok
  if [ "$3" = ">=" ]; then ok=$(echo "$2 >= $4" | bc -l); else ok=$(echo "$2 <= $4" | bc -l); fi
  printf '%-52s %10.2f %3s %6s  %s\n' "$1" "$2" "$3" "$4" "$([ "$ok" = 1 ] && echo met || echo MISSED)" >>"$TARGETS"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
hwm_mb() { awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$1/status" 2>/dev/null || echo "?"; }
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) / hz}' "/proc/$1/stat" 2>/dev/null || echo "?"; }
rss_mb() { awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$1/status" 2>/dev/null || echo "?"; }

# --- nginx on 127.0.0.1 -------------------------------------------------------------------------------
PORT=$((20000 + RANDOM % 20000))
start_nginx() {
  mkdir -p "$W/nginx"
  cat >"$W/nginx/nginx.conf" <<CONF
$( [ "$(id -u)" -eq 0 ] && echo "user root;" )
worker_processes 2;
pid $W/nginx/nginx.pid;
error_log $W/nginx/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on; tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path $W/nginx/body; proxy_temp_path $W/nginx/proxy; fastcgi_temp_path $W/nginx/fcgi;
  uwsgi_temp_path $W/nginx/uwsgi; scgi_temp_path $W/nginx/scgi;
  types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; }
  default_type application/octet-stream;
  server { listen 127.0.0.1:$PORT; root $W/media; }
}
CONF
  nginx -c "$W/nginx/nginx.conf" -p "$W/nginx"
  trap 'kill $(cat "$W/nginx/nginx.pid") 2>/dev/null || true; stop_pipeline; stop_postgres; rm -rf "$TRASH"; date +%s >"$W/last-mass-delete"' EXIT
}
ORIGIN="http://127.0.0.1:$PORT"

# --- a Stowage pipeline in a fresh home ------------------------------------------------------------------
PIDS=()
start_pipeline() { # home, extra scheduler args...
  local home="$1"; shift
  discard "$home"; mkdir -p "$home"
  export STOWAGE_HOME="$home"
  "$BIN/stowage-scheduler" --disk-cushion 0 "$@" 2>"$home/scheduler.log" & PIDS=($!)
  if [ "${NO_WORKERS:-0}" != 1 ]; then
    "$BIN/stowage-license-worker" 2>"$home/license.log" & PIDS+=($!)
    "$BIN/stowage-download-worker" --concurrency 16 2>"$home/download.log" & PIDS+=($!)
    "$BIN/stowage-integrity-worker" 2>"$home/integrity.log" & PIDS+=($!)
    for _ in $(seq 100); do
      [ "$("$BIN/stowctl" workers --json 2>/dev/null | grep -c '"kind"')" -ge 3 ] && return
      sleep 0.1
    done
    echo "workers did not register; logs in $home" >&2; exit 1
  fi
}
stop_pipeline() { [ "${#PIDS[@]}" -gt 0 ] && kill "${PIDS[@]}" 2>/dev/null; wait 2>/dev/null || true; PIDS=(); }

# --- large title ---------------------------------------------------------------------------------------
# The large title's media (kept between runs; also the bundle section's title).
make_big_media() {
  local media="$W/media/big"
  if [ ! -f "$media/index.m3u8" ] || [ "$(cat "$W/media/big.loops" 2>/dev/null)" != "$LOOPS" ]; then
    log "encoding 60 s of 720p once, then looping it $LOOPS times into HLS"
    rm -rf "$media"; mkdir -p "$media"
    ffmpeg -v error -y -f lavfi -i testsrc2=size=1280x720:rate=25 -f lavfi -i sine=frequency=440:sample_rate=48000 -t 60 \
      -vf noise=alls=12:allf=t -c:v libx264 -preset ultrafast -b:v 8M -maxrate 8M -bufsize 16M -g 50 -keyint_min 50 \
      -sc_threshold 0 -c:a aac -b:a 128k -f mpegts "$W/base.ts"
    ffmpeg -v error -y -stream_loop $((LOOPS - 1)) -i "$W/base.ts" -c copy -f hls -hls_time 2 -hls_playlist_type vod \
      -hls_segment_filename "$media/seg%05d.ts" "$media/index.m3u8"
    echo "$LOOPS" >"$W/media/big.loops"
  fi
}

large() {
  make_big_media
  local media="$W/media/big"
  local bytes segs
  bytes=$(du -cb "$media"/*.ts | tail -1 | cut -f1)
  segs=$(grep -c '^seg' "$media/index.m3u8")
  say ""
  say "== large title: $segs segments, $((bytes / 1048576)) MiB, nginx on 127.0.0.1, $REPEAT runs each (alternating)"
  grep '^seg' "$media/index.m3u8" | sed "s#^#$ORIGIN/big/#" >"$W/urls.txt"
  : >"$W/curl.cfg"
  while read -r u; do printf 'url = "%s"\noutput = "%s"\n' "$u" "$W/out/curl/$(basename "$u")" >>"$W/curl.cfg"; done <"$W/urls.txt"
  local url="$ORIGIN/big/index.m3u8" hwm="" cpu=""
  for i in $(seq "$REPEAT"); do
    start_pipeline "$W/home-large" --titles 1 --per-title 16 --per-host 16
    local t0 t1; t0=$(now)
    "$BIN/stowctl" submit "$url" --wait >/dev/null 2>&1 || { echo "stowage run failed; logs in $W/home-large" >&2; exit 1; }
    t1=$(now)
    echo "$t1 - $t0" | bc >>"$W/t-stowage"
    large_hwm=$(hwm_mb "${PIDS[2]}")
    hwm="scheduler $(hwm_mb "${PIDS[0]}") MB, license-worker $(hwm_mb "${PIDS[1]}") MB, download-worker $(hwm_mb "${PIDS[2]}") MB, integrity-worker $(hwm_mb "${PIDS[3]}") MB"
    cpu="scheduler $(cpu_s "${PIDS[0]}") s, download-worker $(cpu_s "${PIDS[2]}") s, integrity-worker $(cpu_s "${PIDS[3]}") s"
    stop_pipeline
    discard "$W/home-large"
    for tool in $PEERS; do
      discard "$W/out"; mkdir -p "$W/out/curl" "$W/out/$tool"
      t0=$(now)
      case "$tool" in
        aria2c) aria2c -q -j16 -x1 -s1 --allow-overwrite=true --auto-file-renaming=false -i "$W/urls.txt" -d "$W/out/aria2c" ;;
        curl) curl -s --no-progress-meter --fail --parallel --parallel-max 16 -K "$W/curl.cfg" ;;
        yt-dlp) "$VENV/bin/yt-dlp" -q --no-warnings --concurrent-fragments 8 --no-part --fixup never -o "$W/out/yt-dlp/video.ts" "$url" ;;
        ffmpeg) ffmpeg -v error -y -i "$url" -c copy -f mpegts "$W/out/ffmpeg/video.ts" ;;
      esac
      t1=$(now)
      echo "$t1 - $t0" | bc >>"$W/t-$tool"
    done
    log "run $i done"
  done
  local base; base=$(median <"$W/t-stowage")
  say "$(printf '%-34s %10s %10s %12s' tool 'median s' 'MB/s' 'x Stowage')"
  for tool in stowage $PEERS; do
    local m; m=$(median <"$W/t-$tool")
    local label="$tool"
    case "$tool" in
      stowage) label="Stowage (download + verify)" ;;
      aria2c) label="aria2c -j16 (download only)" ;;
      curl) label="curl --parallel 16" ;;
      yt-dlp) label="yt-dlp --concurrent-fragments 8" ;;
      ffmpeg) label="ffmpeg -c copy" ;;
    esac
    say "$(printf '%-34s %10.2f %10.1f %12.2f' "$label" "$m" "$(echo "$bytes / 1048576 / $m" | bc -l)" "$(echo "$m / $base" | bc -l)")"
  done
  say "peak RSS (VmHWM) during the last Stowage run: $hwm"
  case " $PEERS " in *" aria2c "*) target "large: time <= 0.8x aria2c's" "$(echo "$base / $(median <"$W/t-aria2c")" | bc -l)" "<=" 0.8 ;; esac
  case " $PEERS " in *" curl "*) target "large: time <= 1.5x curl --parallel's" "$(echo "$base / $(median <"$W/t-curl")" | bc -l)" "<=" 1.5 ;; esac
  target "large: download worker peak RSS (MB)" "$large_hwm" "<=" 64
  say "CPU time of the last Stowage run: $cpu"
  rm -f "$W"/t-*
}

# --- small segments --------------------------------------------------------------------------------------
small() {
  local media="$W/media/small"
  if [ ! -f "$media/index.m3u8" ] || [ "$(grep -c '^s' "$media/index.m3u8")" != "$SMALL" ]; then
    log "cutting a TS stream into $SMALL segments of 21 packets (3948 bytes)"
    rm -rf "$media"; mkdir -p "$media"
    ffmpeg -v error -y -f lavfi -i testsrc2=size=640x360:rate=25 -t 120 -vf noise=alls=20:allf=t -c:v libx264 -preset ultrafast \
      -b:v 4M -f mpegts "$W/small-src.ts"
    head -c $((SMALL * 3948)) "$W/small-src.ts" | split -a 6 -d -b 3948 - "$media/s"
    { printf '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n'
      for f in $(ls "$media" | grep '^s'); do mv "$media/$f" "$media/$f.ts"; printf '#EXTINF:0.04,\n%s.ts\n' "$f"; done
      printf '#EXT-X-ENDLIST\n'; } >"$W/small.m3u8"
    mv "$W/small.m3u8" "$media/index.m3u8"
  fi
  say ""
  settle
  say "== small segments: $SMALL x 3948 bytes, $REPEAT runs each (alternating)"
  grep '^s' "$media/index.m3u8" | sed "s#^#$ORIGIN/small/#" >"$W/small-urls.txt"
  : >"$W/small-curl.cfg"
  while read -r u; do printf 'url = "%s"\noutput = "%s"\n' "$u" "$W/out/$(basename "$u")" >>"$W/small-curl.cfg"; done \
    <"$W/small-urls.txt"
  local cpu="" t0 t1
  rm -f "$W"/s-*
  for i in $(seq "$REPEAT"); do
    start_pipeline "$W/home-small" --titles 1 --per-title 16 --per-host 16
    t0=$(now)
    "$BIN/stowctl" submit "$ORIGIN/small/index.m3u8" --wait >/dev/null 2>&1 || { echo "stowage small run failed" >&2; exit 1; }
    t1=$(now)
    echo "$t1 - $t0" | bc >>"$W/s-stowage"
    cpu="scheduler $(cpu_s "${PIDS[0]}") s, download-worker $(cpu_s "${PIDS[2]}") s, integrity-worker $(cpu_s "${PIDS[3]}") s"
    small_hwm=$(hwm_mb "${PIDS[2]}")
    stop_pipeline
    discard "$W/home-small" "$W/out"; mkdir -p "$W/out"
    t0=$(now)
    aria2c -q -j16 -x1 -s1 --allow-overwrite=true --auto-file-renaming=false -i "$W/small-urls.txt" -d "$W/out"
    t1=$(now)
    echo "$t1 - $t0" | bc >>"$W/s-aria2c"
    discard "$W/out"; mkdir -p "$W/out"
    t0=$(now)
    curl -s --no-progress-meter --fail --parallel --parallel-max 16 -K "$W/small-curl.cfg"
    t1=$(now)
    echo "$t1 - $t0" | bc >>"$W/s-curl"
    discard "$W/out"
    log "small run $i done"
  done
  target "small: download worker peak RSS (MB)" "$small_hwm" "<=" 64
  local ts ta tc; ts=$(median <"$W/s-stowage"); ta=$(median <"$W/s-aria2c"); tc=$(median <"$W/s-curl")
  local rs ra rc; rs=$(echo "$SMALL / $ts" | bc -l); ra=$(echo "$SMALL / $ta" | bc -l); rc=$(echo "$SMALL / $tc" | bc -l)
  say "$(printf '%-44s %8s %12s %12s' tool 'median s' segments/s 'Stowage ÷')"
  say "$(printf '%-44s %8.2f %12.0f %12s' 'Stowage (hashed, checked, fsynced, recorded)' "$ts" "$rs" -)"
  say "$(printf '%-44s %8.2f %12.0f %12.2f' 'aria2c -j16 (download only)' "$ta" "$ra" "$(echo "$rs / $ra" | bc -l)")"
  say "$(printf '%-44s %8.2f %12.0f %12.2f' 'curl --parallel 16 (download only)' "$tc" "$rc" "$(echo "$rs / $rc" | bc -l)")"
  say "every run, seconds: Stowage $(paste -sd' ' "$W/s-stowage"); aria2c $(paste -sd' ' "$W/s-aria2c"); curl $(paste -sd' ' "$W/s-curl")"
  say "CPU time of the last Stowage run: $cpu; download worker peak RSS $small_hwm MB"
  target "small: segments/s >= 2.0x aria2c's" "$(echo "$rs / $ra" | bc -l)" ">=" 2.0
  target "small: segments/s >= 0.5x curl --parallel's" "$(echo "$rs / $rc" | bc -l)" ">=" 0.5
  rm -f "$W"/s-*
  discard "$W/home-small" "$W/out"
}

# --- scheduler scale -------------------------------------------------------------------------------------
scale() {
  say ""
  say "== scheduler scale: $TITLES titles (no workers, so they stay queued)"
  NO_WORKERS=1 start_pipeline "$W/home-scale"
  sleep 0.5
  local line; line=$("$VENV/bin/python" Benchmarks/submit_many.py "ipc://$W/home-scale/run/scheduler.ipc" "$TITLES" "$ORIGIN/scale")
  say "submit: $line"
  local t0 t1; t0=$(now)
  local listed; listed=$("$BIN/stowctl" list --json | grep -c '"token"')
  t1=$(now)
  local tl pages; tl=$(echo "$t1 - $t0" | bc); pages=$(( (listed + 999) / 1000 ))
  say "$(printf 'list --json: %d titles in %.2f s (%d pages of 1,000: %.3f s a page)' "$listed" "$tl" "$pages" \
    "$(echo "$tl / $pages" | bc -l)")"
  t0=$(now)
  "$BIN/stowctl" stats >/dev/null
  t1=$(now)
  local tst; tst=$(echo "$t1 - $t0" | bc)
  say "$(printf 'stats: %.3f s' "$tst")"
  say "scheduler RSS with $TITLES titles: $(rss_mb "${PIDS[0]}") MB (peak $(hwm_mb "${PIDS[0]}") MB)"
  target "scale: list, seconds per page of 1,000 titles" "$(echo "$tl / $pages" | bc -l)" "<=" 1
  target "scale: stats, seconds" "$tst" "<=" 1
  target "scale: scheduler peak RSS (MB)" "$(hwm_mb "${PIDS[0]}")" "<=" 300
  kill -9 "${PIDS[0]}"; wait "${PIDS[0]}" 2>/dev/null || true
  t0=$(now)
  "$BIN/stowage-scheduler" --disk-cushion 0 2>>"$W/home-scale/scheduler.log" & PIDS=($!)
  until "$BIN/stowctl" stats >/dev/null 2>&1; do sleep 0.02; done
  t1=$(now)
  say "$(printf 'recovery after kill -9 (start until it answers, %d titles): %.2f s' "$TITLES" "$(echo "$t1 - $t0" | bc)")"
  say "scheduler RSS after recovery: $(rss_mb "${PIDS[0]}") MB"
  stop_pipeline
  discard "$W/home-scale"
}

source Benchmarks/serve.sh
source Benchmarks/bundle.sh
source Benchmarks/farm.sh
start_nginx
for section in $ONLY; do "$section"; done
say ""
say "== targets (issues #13, #33, #34)"
while read -r line; do say "$line"; done <"$TARGETS"
say ""
say "(results also in $RESULTS)"
