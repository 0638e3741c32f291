# The `serve` section of Benchmarks/run.sh (sourced by it; uses its say, target, median, start_pipeline, ...).
#
# A completed title (ffmpeg-made, ~25 segments of ~250 KB, downloaded by the real pipeline), then:
#  - 64 wrk clients round-robin over its segments with a device's bearer credential, against stowage-gateway and
#    against nginx (sendfile) serving the same folder, alternating, STOWAGE_BENCH_REPEAT runs each: medians of
#    requests/s, MB/s and p99 latency;
#  - STOWAGE_BENCH_SLOW (1000) slow clients (Benchmarks/slow_clients.py, ~2 Mb/s each) for STOWAGE_BENCH_SLOW_SECONDS
#    (60): errors, the spread of the clients' rates, and the gateway's RSS.
# STOWAGE_BENCH_PERF=1 also records `perf record -g` of the gateway during one extra wrk run ($W/serve.perf.data).
SLOW="${STOWAGE_BENCH_SLOW:-1000}"
SLOW_SECONDS="${STOWAGE_BENCH_SLOW_SECONDS:-60}"
WRK_SECONDS="${STOWAGE_BENCH_WRK_SECONDS:-10}"
# The gateway measured (default: the one built with the rest; the pipeline only prepares the title).
GATEWAY="${STOWAGE_BENCH_GATEWAY:-}"

# wrk's output: requests/s, MB/s and p99 in ms (one line, space-separated).
wrk_figures() {
  awk '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
    function mb(v) { n = v + 0; if (v ~ /GB$/) return n * 1024; if (v ~ /MB$/) return n; if (v ~ /KB$/) return n / 1024; return n / 1048576 }
    /^Requests\/sec:/ { r = $2 }
    /^Transfer\/sec:/ { t = mb($2) }
    /^ *99%/ { p = ms($2) }
    /Non-2xx/ { bad = $NF }
    END { printf "%.0f %.1f %.2f %d\n", r, t, p, bad }' "$1"
}

serve() {
  ensure_packages wrk
  ulimit -n 65536 2>/dev/null || true  # the gateway and the clients hold 1,000+ connections
  local media="$W/media/serve"
  if [ ! -f "$media/index.m3u8" ]; then
    log "encoding 50 s of 1 Mb/s video into 2 s HLS segments (~250 KB each)"
    rm -rf "$media"; mkdir -p "$media"
    ffmpeg -v error -y -f lavfi -i testsrc2=size=960x540:rate=25 -t 50 -vf noise=alls=12:allf=t -c:v libx264 \
      -preset ultrafast -b:v 1M -maxrate 1M -bufsize 1M -g 50 -keyint_min 50 -sc_threshold 0 -f hls -hls_time 2 \
      -hls_playlist_type vod -hls_segment_filename "$media/seg%03d.ts" "$media/index.m3u8"
  fi
  local home="$W/home-serve"
  start_pipeline "$home"
  local token
  token=$("$BIN/stowctl" submit "$ORIGIN/serve/index.m3u8" --id bench --wait 2>/dev/null | tail -n 1) ||
    { echo "the serve title did not complete; logs in $home" >&2; exit 1; }
  local titles="$home/titles"
  local secret; secret=$("$BIN/stowctl" devices add bench-device | tail -n 1)
  local gport=$((PORT + 1))
  "${GATEWAY:-$BIN/stowage-gateway}" --listen "127.0.0.1:$gport" ${STOWAGE_BENCH_GATEWAY_ARGS:-} 2>"$home/gateway.log" >"$home/gateway.out" & local gw=$!
  PIDS+=("$gw")
  # The same gateway reading files into buffers (--no-zero-copy: TLS's path, and the path before sendfile).
  local bport=$((PORT + 3))
  "${GATEWAY:-$BIN/stowage-gateway}" --listen "127.0.0.1:$bport" --no-zero-copy 2>"$home/gateway-buffered.log" \
    >"$home/gateway-buffered.out" & local gwb=$!
  PIDS+=("$gwb")
  until grep -q listening "$home/gateway.out" 2>/dev/null && grep -q listening "$home/gateway-buffered.out" 2>/dev/null
  do sleep 0.1; done
  # The same segments by both servers: the gateway's paths by id, nginx's under a second root (the title folder).
  (cd "$titles/$token" && find . -name '*.ts' | sort | sed 's#^\./##') >"$W/serve-segments.txt"
  sed "s#^#/titles/bench/#" "$W/serve-segments.txt" >"$W/serve-gw-paths.txt"
  sed "s#^#/$token/#" "$W/serve-segments.txt" >"$W/serve-nginx-paths.txt"
  local segs bytes
  segs=$(wc -l <"$W/serve-segments.txt")
  bytes=$(cd "$titles/$token" && du -cb $(cat "$W/serve-segments.txt") | tail -1 | cut -f1)
  mkdir -p "$W/nginx-serve"
  sed -e "s#listen 127.0.0.1:$PORT;#listen 127.0.0.1:$((PORT + 2));#" -e "s#root $W/media;#root $titles;#" \
    -e "s#pid $W/nginx/nginx.pid;#pid $W/nginx-serve/nginx.pid;#" "$W/nginx/nginx.conf" >"$W/nginx-serve/nginx.conf"
  nginx -c "$W/nginx-serve/nginx.conf" -p "$W/nginx"
  cat >"$W/serve.lua" <<'LUA'
local paths = {}
for line in io.lines(os.getenv("WRK_PATHS")) do paths[#paths + 1] = line end
local i = 0
function setup(thread) thread:set("offset", math.random(#paths)) end
function init() i = offset or 0 end
function request()
  i = i % #paths + 1
  return wrk.format("GET", paths[i], { ["Authorization"] = "Bearer " .. os.getenv("WRK_SECRET") })
end
LUA
  say ""
  say "== serve: $segs segments, $((bytes / 1024)) KiB in all (~$((bytes / segs / 1024)) KiB each), 64 wrk clients, 2 threads, ${WRK_SECONDS}s a run, $REPEAT runs each (alternating)"
  say "machine load before the runs (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg)"
  rm -f "$W"/w-*
  # a warm-up of each, untimed
  WRK_PATHS="$W/serve-gw-paths.txt" WRK_SECRET="$secret" wrk -t2 -c64 -d2s -s "$W/serve.lua" "http://127.0.0.1:$gport" >/dev/null
  WRK_PATHS="$W/serve-gw-paths.txt" WRK_SECRET="$secret" wrk -t2 -c64 -d2s -s "$W/serve.lua" "http://127.0.0.1:$bport" >/dev/null
  WRK_PATHS="$W/serve-nginx-paths.txt" WRK_SECRET="$secret" wrk -t2 -c64 -d2s -s "$W/serve.lua" "http://127.0.0.1:$((PORT + 2))" >/dev/null
  local i sched_cpu0; sched_cpu0=$(cpu_s "${PIDS[0]}")
  for i in $(seq "$REPEAT"); do
    WRK_PATHS="$W/serve-gw-paths.txt" WRK_SECRET="$secret" wrk -t2 -c64 -d"${WRK_SECONDS}s" --latency -s "$W/serve.lua" \
      "http://127.0.0.1:$gport" >"$W/wrk-gw-$i.txt"
    wrk_figures "$W/wrk-gw-$i.txt" >>"$W/w-gw"
    WRK_PATHS="$W/serve-gw-paths.txt" WRK_SECRET="$secret" wrk -t2 -c64 -d"${WRK_SECONDS}s" --latency -s "$W/serve.lua" \
      "http://127.0.0.1:$bport" >"$W/wrk-gwb-$i.txt"
    wrk_figures "$W/wrk-gwb-$i.txt" >>"$W/w-gwb"
    WRK_PATHS="$W/serve-nginx-paths.txt" WRK_SECRET="$secret" wrk -t2 -c64 -d"${WRK_SECONDS}s" --latency -s "$W/serve.lua" \
      "http://127.0.0.1:$((PORT + 2))" >"$W/wrk-nginx-$i.txt"
    wrk_figures "$W/wrk-nginx-$i.txt" >>"$W/w-nginx"
    log "serve run $i done: gateway $(tail -1 "$W/w-gw"), buffered $(tail -1 "$W/w-gwb"), nginx $(tail -1 "$W/w-nginx") (req/s MB/s p99-ms non-2xx)"
  done
  say "$(printf '%-34s %12s %10s %12s %8s' server 'requests/s' 'MB/s' 'p99 ms' 'non-2xx')"
  local g_r g_m g_p n_r n_m n_p g_bad
  g_r=$(cut -d' ' -f1 "$W/w-gw" | median); g_m=$(cut -d' ' -f2 "$W/w-gw" | median); g_p=$(cut -d' ' -f3 "$W/w-gw" | median)
  n_r=$(cut -d' ' -f1 "$W/w-nginx" | median); n_m=$(cut -d' ' -f2 "$W/w-nginx" | median); n_p=$(cut -d' ' -f3 "$W/w-nginx" | median)
  g_bad=$(cut -d' ' -f4 "$W/w-gw" | paste -sd+ | bc)
  say "$(printf '%-34s %12.0f %10.1f %12.2f %8d' 'stowage-gateway (bearer)' "$g_r" "$g_m" "$g_p" "$g_bad")"
  say "$(printf '%-34s %12.0f %10.1f %12.2f %8d' 'stowage-gateway --no-zero-copy' "$(cut -d' ' -f1 "$W/w-gwb" | median)" \
    "$(cut -d' ' -f2 "$W/w-gwb" | median)" "$(cut -d' ' -f3 "$W/w-gwb" | median)" "$(cut -d' ' -f4 "$W/w-gwb" | paste -sd+ | bc)")"
  say "$(printf '%-34s %12.0f %10.1f %12.2f %8d' 'nginx (sendfile)' "$n_r" "$n_m" "$n_p" 0)"
  say "every run (req/s MB/s p99-ms non-2xx): gateway $(paste -sd';' "$W/w-gw"); buffered $(paste -sd';' "$W/w-gwb");"\
" nginx $(paste -sd';' "$W/w-nginx")"
  say "gateway RSS after the wrk runs: $(rss_mb "$gw") MB (peak $(hwm_mb "$gw") MB), CPU $(cpu_s "$gw") s;"\
" --no-zero-copy: $(rss_mb "$gwb") MB (peak $(hwm_mb "$gwb") MB), CPU $(cpu_s "$gwb") s"
  local requests; requests=$(cat "$W"/wrk-gw-*.txt "$W"/wrk-gwb-*.txt | awk '/requests in/ {n += $1} END {print n}')
  say "scheduler CPU during the gateway runs: $(echo "$(cpu_s "${PIDS[0]}") - $sched_cpu0" | bc) s for $requests requests"\
" (no round trip per segment: credentials once a second, titles every 3 s, plays once per session)"
  target "serve: gateway MB/s >= 0.5x nginx's" "$(echo "$g_m / $n_m" | bc -l)" ">=" 0.5
  target "serve: gateway p99 <= 2x nginx's" "$(echo "$g_p / $n_p" | bc -l)" "<=" 2
  target "serve: non-2xx answers of the gateway" "$g_bad" "<=" 0
  if [ "${STOWAGE_BENCH_PERF:-0}" = 1 ]; then
    local pid port name
    for name in gateway buffered; do
      if [ "$name" = gateway ]; then pid=$gw; port=$gport; else pid=$gwb; port=$bport; fi
      perf record -F 999 -g -o "$W/serve-$name.perf.data" -p "$pid" -- sleep "$WRK_SECONDS" >/dev/null 2>&1 &
      local perf=$!
      WRK_PATHS="$W/serve-gw-paths.txt" WRK_SECRET="$secret" wrk -t2 -c64 -d"${WRK_SECONDS}s" -s "$W/serve.lua" \
        "http://127.0.0.1:$port" >/dev/null
      wait "$perf" || true
      say "perf profile of the $name gateway: $W/serve-$name.perf.data (perf report -i FILE --no-children)"
    done
  fi
  kill "$gwb" 2>/dev/null || true
  if [ "$SLOW" -gt 0 ]; then
    say ""
    say "== serve: $SLOW slow clients at ~2 Mb/s each for ${SLOW_SECONDS}s (Benchmarks/slow_clients.py), load $(cut -d' ' -f1 /proc/loadavg)"
    local line
    line=$(python3 Benchmarks/slow_clients.py 127.0.0.1 "$gport" "$W/serve-gw-paths.txt" "$secret" \
      --clients "$SLOW" --rate 250000 --seconds "$SLOW_SECONDS" & local py=$!
      local peak=0 r
      while kill -0 "$py" 2>/dev/null; do
        r=$(rss_mb "$gw"); [ "$(echo "$r > $peak" | bc -l)" = 1 ] && peak=$r
        echo "$peak" >"$W/serve-rss-peak"; sleep 1
      done
      wait "$py")
    say "slow clients: $line"
    local errors spread
    errors=$(echo "$line" | python3 -c 'import json,sys; print(json.load(sys.stdin)["errors"])')
    spread=$(echo "$line" | python3 -c 'import json,sys; print(json.load(sys.stdin)["spread"])')
    say "gateway RSS during the slow clients: peak $(cat "$W/serve-rss-peak") MB (VmHWM since start $(hwm_mb "$gw") MB)"
    target "serve: slow clients' errors" "$errors" "<=" 0
    target "serve: slow clients' rate spread ((max-min)/median)" "$spread" "<=" 0.2
    target "serve: gateway RSS with the slow clients (MB)" "$(cat "$W/serve-rss-peak")" "<=" 300
  fi
  kill "$(cat "$W/nginx-serve/nginx.pid")" 2>/dev/null || true
  stop_pipeline
  rm -f "$W"/w-*
}
