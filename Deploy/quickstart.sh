#!/usr/bin/env bash
# On a fresh machine: installs what is missing, builds, starts a local pipeline, serves a generated sample
# title from stowage-origin, downloads it with a progress display, verifies it, checks that it plays
# offline, and prints where it is.
cd "$(dirname "$0")/.."
export STOWAGE_HOME="${STOWAGE_HOME:-$PWD/.stowage-quickstart}"
source Deploy/lib.sh

ensure_packages
build

work="$STOWAGE_HOME/quickstart"
mkdir -p "$work"
if [ ! -f "$work/media/master.m3u8" ]; then
  log "generating a sample title with ffmpeg"
  "$BIN/stowage-origin" sample "$work/media" --seconds 20 >/dev/null
fi

log "starting stowage-origin"
"$BIN/stowage-origin" serve --root "$work/media" --port 0 --latency-ms 40 >"$work/origin.out" 2>"$work/origin.log" &
origin=$!
cleanup() { kill "$origin" 2>/dev/null || true; Deploy/stop.sh >/dev/null 2>&1 || true; }
trap cleanup EXIT
for _ in $(seq 1 50); do grep -q listening "$work/origin.out" 2>/dev/null && break; sleep 0.1; done
url="$(sed -n 's/^listening \(.*\)$/\1/p' "$work/origin.out")master.m3u8"

log "starting the pipeline (STOWAGE_HOME=$STOWAGE_HOME)"
Deploy/start.sh --workers 1

log "downloading $url"
token="$("$BIN/stowctl" submit "$url" --bitrate 1000000 --name "Stowage sample" --wait | tail -n 1)"

log "verifying every file at rest"
"$BIN/stowctl" verify "$token"
log "offline playability"
"$BIN/stowctl" playable "$token"

log "status"
"$BIN/stowctl" status "$token"
json="$("$BIN/stowctl" status "$token" --json)"
playlist="$(printf '%s' "$json" | sed -n 's/.*"localPlaylist" : "\(.*\)".*/\1/p')"
printf '%s' "$json" | grep -q '"playableOffline" : true' || { echo "the title is not playable offline" >&2; exit 1; }

log "checking that the offline copy is the same media (ffmpeg framemd5 with the origin stopped)"
variant="$(grep -m1 '^#EXT-X-STREAM-INF' "$playlist")"
source_uri="$(grep -A1 -F -x "$variant" "$work/media/master.m3u8" | tail -n 1)"
kill "$origin"; wait "$origin" 2>/dev/null || true
offline="$(ffmpeg -v error -i "$playlist" -map 0:v -f framemd5 - | grep -v '^#' | md5sum)"
online="$(ffmpeg -v error -i "$work/media/$source_uri" -map 0:v -f framemd5 - | grep -v '^#' | md5sum)"
[ "$offline" = "$online" ] || { echo "offline frames differ from the origin's" >&2; exit 1; }
log "frames identical to the origin's ($source_uri)"

log "done: the offline copy of '$token' is at $(dirname "$playlist"), entry playlist $playlist"
