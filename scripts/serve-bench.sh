#!/usr/bin/env bash
# The daemon's throughput and memory figures (docs/benchmarks.md), measured against the release build:
#   1. GET /v1/resolve?url=<share URL> and GET /s/{token} (a preview origin on loopback, cached) against nginx serving the
#      same bytes, with wrk, 32 conns (scripts/nginx-compare.sh; method in docs/benchmarks.md);
#      POST /v1/resolve with wrk and a Lua body, against nginx answering the same POST in the same run;
#   2. resident size of a fresh daemon after 100,000 links created through the API;
#   3. resident size with 1,000,000 revocations loaded from the store, against the same daemon with none.
# Usage: scripts/serve-bench.sh [SECONDS] [speed]   (needs wrk and nginx: apt-get install wrk nginx-light)
#   speed: the throughput part only.  LOOPS="0 1": the event-loop thread counts measured, in turn (0: one per core, the
#   shipped default; 1: one loop, as nginx runs here with its one worker). LINKD_BIN=…: another build (default
#   .build/release/linkd, built first), e.g. two builds in turn for a before/after.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
scripts/ensure-deps.sh build
if [ -z "${LINKD_BIN:-}" ]; then
  scripts/build-release.sh 2>&1 | grep -E "error:|complete" | tail -20
fi
bin=${LINKD_BIN:-.build/release/linkd}
work=$(mktemp -d)
pid=""
origin_pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$origin_pid" ] && kill "$origin_pid" 2>/dev/null; [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null; rm -rf "$work"' EXIT

# A preview origin on loopback (one JSON answer for every item), and the Handz manifest pointed at it, so that
# GET /s/{token} is measured with a cached preview.
. scripts/preview-origin.sh
start_preview_origin "$work"
manifests=$preview_manifests

# start DATA_DIR: runs linkd serve with rate limits off; sets pid, base, admin.
start() {
  printf 'port: 0\nrateLimitPerSecond: 0\nlogLevel: warning\neventLoopThreads: %s\ndataDir: %s\n' "${loops:-0}" "$1" >"$work/linkd.yaml"
  export LINKD_MANIFESTS=$manifests
  "$bin" serve --config "$work/linkd.yaml" >"$work/out" 2>"$work/err" &
  pid=$!
  for _ in $(seq 1 300); do grep -q "listening on" "$work/out" 2>/dev/null && break; sleep 0.1; done
  base=$(sed -n 's/^linkd: listening on //p' "$work/out")
  [ -n "$base" ] || { cat "$work/err" >&2; exit 1; }
  if [ -f "$1/initial-admin-key" ]; then admin=$(cat "$1/initial-admin-key"); fi
}
stop() { kill -TERM "$pid"; wait "$pid" || true; pid=""; }
rss() { awk '/VmRSS/ {printf "%.1f MB", $2/1024}' "/proc/$pid/status"; }
# The daemon's CPU time so far (user + system), in clock ticks.
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
# compare URL: nginx-compare, and the daemon's CPU time per request it answered (less noisy than the rate on a
# shared machine: what one answer costs, whatever else runs).
compare() {
  local before out
  before=$(ticks)
  out=$(scripts/nginx-compare.sh "$1" "$secs" 32)
  echo "$out"
  awk -v t="$(( $(ticks) - before ))" -v hz="$(getconf CLK_TCK)" -v s="$secs" \
    '/^target:/ { printf "linkd CPU per request: %.1f µs (user + system)\n", t / hz * 1e6 / ($2 * s) }' <<<"$out"
}
post() { curl -sf -XPOST "$base$1" -H "Authorization: Bearer $2" -H 'Content-Type: application/json' -d "$3"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

# The throughput runs of one daemon with eventLoopThreads $loops.
speed() {
start "$work/a-$loops"
client=$(post /v1/admin/api-keys "$admin" '{"kind":"client","app":"handz","label":"bench"}' | field key)
link=$(post /v1/links "$client" '{"route":"ShareLink/FlowView","params":{"flowId":"6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b"}}')
token=$(field token <<<"$link"); url=$(field url <<<"$link")
enc=$(python3 -c "import urllib.parse,sys; print(urllib.parse.quote(sys.argv[1], safe=''))" "$url")
curl -s "$base/v1/resolve?url=$enc&state=free" | grep -c '"outcome":"route"' >/dev/null \
  || { echo "serve-bench: the share URL does not resolve to a route; fix the benchmark" >&2; exit 1; }
echo "==== eventLoopThreads: $loops$([ "$loops" = 0 ] && echo " (one per core, the default)")   rss at start: $(rss)"

echo "== GET /v1/resolve?url=<share URL>&state=free (nginx-compare, ${secs}s, 32 connections)"
compare "$base/v1/resolve?url=$enc&state=free"
# The first visit fetches the preview (waiting at most previewWaitMilliseconds); a busy machine may need another.
for _ in $(seq 1 20); do curl -s "$base/s/$token" | grep -c "Morning flow" >/dev/null && break; sleep 1; done
curl -s "$base/s/$token" | grep -c "Morning flow" >/dev/null || { echo "the landing page has no preview" >&2; exit 1; }
echo "== GET /s/{token}, valid link, cached preview, desktop page with QR code (nginx-compare)"
compare "$base/s/$token"
echo "== POST /v1/resolve (wrk + Lua body, ${secs}s, 32 connections) and nginx answering the same POST, same run"
cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"url":"$url","state":"free"}'
LUA
# nginx-compare sends GETs only: the same comparison for a POST, with nginx set up as nginx-compare sets it up.
nport=$((20000 + RANDOM % 20000))
cat >"$work/nginx.conf" <<CONF
worker_processes 1; pid $work/nginx.pid; error_log $work/nginx-error.log; daemon on;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:$nport;
  location / { default_type application/json; return 200 '{"route":"ShareLink/FlowView","params":{"flowId":"42"}}'; } } }
CONF
"$(command -v nginx || echo /usr/sbin/nginx)" -c "$work/nginx.conf"; sleep 0.3
before=$(ticks)
post_linkd=$(wrk -t1 -c32 -d"${secs}s" --latency -s "$work/post.lua" "$base/v1/resolve")
post_ticks=$(( $(ticks) - before ))
post_nginx=$(wrk -t1 -c32 -d"${secs}s" --latency -s "$work/post.lua" "http://127.0.0.1:$nport/v1/resolve")
kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
rps() { awk '/Requests\/sec/ {print $2}' <<<"$1"; }
p99() { awk '$1=="99%" {print $2}' <<<"$1"; }
echo "target: $(rps "$post_linkd") req/s  p99 $(p99 "$post_linkd")  $(grep -E 'Non-2xx|Socket errors' <<<"$post_linkd" || true)"
echo "nginx : $(rps "$post_nginx") req/s  p99 $(p99 "$post_nginx")"
awk -v a="$(rps "$post_linkd")" -v b="$(rps "$post_nginx")" 'BEGIN { printf "ratio target/nginx: %.2f\n", a/b }'
awk -v t="$post_ticks" -v hz="$(getconf CLK_TCK)" -v n="$(awk '/requests in/ {print $1}' <<<"$post_linkd")" \
  'BEGIN { printf "linkd CPU per request: %.1f µs (user + system)\n", t / hz * 1e6 / n }'
stop
}
for loops in ${LOOPS:-0 1}; do speed; done

[ "${2:-}" = speed ] && exit 0
# Memory on a fresh daemon (the shipped default): what the load runs above left in allocator arenas is not what links cost.
loops=0
start "$work/c"
client=$(post /v1/admin/api-keys "$admin" '{"kind":"client","app":"handz","label":"bench"}' | field key)
echo "== fresh daemon, rss at start: $(rss); creating 100,000 links through POST /v1/links (8 keep-alive connections)"
python3 - "$base" "$client" <<'PY'
import http.client, json, sys, threading, time, urllib.parse, uuid
base, key = sys.argv[1], sys.argv[2]
host = urllib.parse.urlparse(base)
failures = []
def worker(n):
    c = http.client.HTTPConnection(host.hostname, host.port)
    for _ in range(n):
        body = json.dumps({"route": "ShareLink/FlowView", "params": {"flowId": str(uuid.uuid4())}, "owner": "bench", "title": "A flow"})
        c.request("POST", "/v1/links", body, {"Authorization": "Bearer " + key, "Content-Type": "application/json"})
        r = c.getresponse(); r.read()
        if r.status != 201: failures.append(r.status)
start = time.time()
threads = [threading.Thread(target=worker, args=(12500,)) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print(f"created 100000 links in {time.time() - start:.1f}s, {len(failures)} failures")
PY
sleep 2
echo "== rss after 100,000 links: $(rss) ($(awk '/RssAnon/ {printf "%.1f MB anonymous", $2/1024}' "/proc/$pid/status"), $(awk '/RssFile/ {printf "%.1f MB mapped files", $2/1024}' "/proc/$pid/status"))   (target < 50 MB)"
stop

echo "== 1,000,000 revocations"
start "$work/b"; sleep 1; base_rss=$(rss); stop
python3 - "$work/b/linkd.sqlite" <<'PY'
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executemany("INSERT INTO revocations (linkId, generation, revokedAt) VALUES (?, 0, '2026-01-01 00:00:00.000')",
               ((os.urandom(16).hex(),) for _ in range(1_000_000)))
db.commit()
PY
start "$work/b"; sleep 1
echo "rss with 0 revocations: $base_rss; with 1,000,000: $(rss)   (target: the set < 64 MB)"
curl -s "$base/metrics" | grep '^linkd_revocation_set_size'
stop
