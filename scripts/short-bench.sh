#!/usr/bin/env bash
# The share page by short id against the same page by token, cached and cold, in one run of one daemon (release
# build; docs/benchmarks.md, "Short URLs"):
#   cached — one link whose record, short id and rendered page are in memory (the event loop's fast path answers):
#            GET /s/{token} and GET /s/{short id}, each against nginx serving the same bytes (scripts/nginx-compare.sh);
#   cold   — LINKS links (one flow, so one cached preview) and linkCacheCapacity CACHE, less than LINKS: wrk asks for a
#            random link each request (a Lua list of paths), so most requests read the link's record from the store
#            (SQLite) — by its id for a token, by the short_id index for a short id; first by token, then by short id,
#            with a desktop browser's page (a QR code drawn per link) and an iPhone's (none); then unknown short ids.
# Each figure: requests a second, p99, and the daemon's CPU time per request (less noisy on a shared machine).
# Usage: scripts/short-bench.sh [SECONDS] [LINKS] [CACHE]   (needs wrk and nginx: apt-get install wrk nginx-light)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
links=${2:-20000}
cache=${3:-2000}
[ "$cache" -lt "$links" ] || { echo "short-bench: CACHE must be less than LINKS (cold = records not in the cache)" >&2; exit 64; }
scripts/ensure-deps.sh build
scripts/build-release.sh 2>&1 | grep -E "error:|complete" | tail -20
bin=.build/release/linkd
work=$(mktemp -d)
pid=""
origin_pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$origin_pid" ] && kill "$origin_pid" 2>/dev/null; rm -rf "$work"' EXIT

. scripts/preview-origin.sh
start_preview_origin "$work"

printf 'port: 0\nrateLimitPerSecond: 0\nlogLevel: warning\nlinkCacheCapacity: %s\ndataDir: %s\n' "$cache" "$work/data" >"$work/linkd.yaml"
LINKD_MANIFESTS=$preview_manifests "$bin" serve --config "$work/linkd.yaml" >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 300); do grep -q "listening on" "$work/out" 2>/dev/null && break; sleep 0.1; done
base=$(sed -n 's/^linkd: listening on //p' "$work/out")
[ -n "$base" ] || { cat "$work/err" >&2; exit 1; }
admin=$(cat "$work/data/initial-admin-key")
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
post() { curl -sf -XPOST "$base$1" -H "Authorization: Bearer $2" -H 'Content-Type: application/json' -d "$3"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
client=$(post /v1/admin/api-keys "$admin" '{"kind":"client","app":"handz","label":"bench"}' | field key)

# compare URL: nginx-compare, and the daemon's CPU time per request.
compare() {
  local before out
  before=$(ticks)
  out=$(scripts/nginx-compare.sh "$1" "$secs" 32)
  echo "$out"
  awk -v t="$(( $(ticks) - before ))" -v hz="$(getconf CLK_TCK)" -v s="$secs" \
    '/^target:/ { printf "linkd CPU per request: %.1f µs (user + system)\n", t / hz * 1e6 / ($2 * s) }' <<<"$out"
}
# random PATHS-FILE [USER-AGENT]: wrk (1 thread, 32 connections) over a random path of the file each request.
random() {
  cat >"$work/random.lua" <<LUA
local paths = {}
for line in io.lines("$1") do paths[#paths + 1] = line end
math.randomseed(os.time())
local headers = {}
if "${2:-}" ~= "" then headers["User-Agent"] = "${2:-}" end
request = function() return wrk.format("GET", paths[math.random(#paths)], headers) end
LUA
  local before out
  before=$(ticks)
  out=$(wrk -t1 -c32 -d"${secs}s" --latency -s "$work/random.lua" "$base")
  awk '/Requests\/sec/ {rps=$2} $1=="99%" {p99=$2} /Non-2xx/ {bad=$0} END {printf "target: %s req/s  p99 %s  %s\n", rps, p99, bad}' <<<"$out"
  awk -v t="$(( $(ticks) - before ))" -v hz="$(getconf CLK_TCK)" -v n="$(awk '/requests in/ {print $1}' <<<"$out")" \
    'BEGIN { printf "linkd CPU per request: %.1f µs (user + system)\n", t / hz * 1e6 / n }'
}

echo "== creating $links Handz links (one flow) through POST /v1/links; linkCacheCapacity $cache"
python3 - "$base" "$client" "$links" "$work" <<'PY'
import http.client, json, sys, threading, urllib.parse
base, key, count, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
host = urllib.parse.urlparse(base)
made, lock = [], threading.Lock()
def worker(n):
    c = http.client.HTTPConnection(host.hostname, host.port)
    for _ in range(n):
        body = json.dumps({"route": "ShareLink/FlowView", "params": {"flowId": "6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b"}})
        c.request("POST", "/v1/links", body, {"Authorization": "Bearer " + key, "Content-Type": "application/json"})
        r = c.getresponse(); answer = json.loads(r.read())
        assert r.status == 201, answer
        with lock: made.append((answer["token"], answer["shortURL"].rsplit("/", 1)[1]))
threads = [threading.Thread(target=worker, args=(count // 8 + (1 if i < count % 8 else 0),)) for i in range(8)]
for t in threads: t.start()
for t in threads: t.join()
with open(work + "/tokens", "w") as f: f.writelines(f"/s/{t}\n" for t, _ in made)
with open(work + "/shorts", "w") as f: f.writelines(f"/s/{s}\n" for _, s in made)
PY
token=$(head -1 "$work/tokens"); short=$(head -1 "$work/shorts")
for _ in $(seq 1 20); do curl -s "$base$token" | grep -q "Morning flow" && break; sleep 1; done
curl -s "$base$token" | grep -q "Morning flow" || { echo "short-bench: the landing page has no preview" >&2; exit 1; }
curl -s "$base$short" | grep -q "Morning flow" || { echo "short-bench: the short URL's page has no preview" >&2; exit 1; }
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/s/ZZZZZZZZZZZ")" = 404 ] || { echo "short-bench: an unknown short id is not 404" >&2; exit 1; }

echo "== cached: GET /s/{token} (nginx-compare, ${secs}s, 32 connections)"
compare "$base$token"
echo "== cached: GET /s/{short id} (nginx-compare, ${secs}s, 32 connections)"
compare "$base$short"
echo "== cold: GET /s/{token}, a random one of $links links, $cache records cached (wrk, ${secs}s, 32 connections)"
random "$work/tokens"
echo "== cold: GET /s/{short id}, a random one of $links links, $cache records cached (wrk, ${secs}s, 32 connections)"
random "$work/shorts"
# The desktop page above draws a new QR code for each link it renders; an iPhone's page has none, so these two say
# more of what the store read itself costs.
iphone="Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
echo "== cold, iPhone (no QR code): GET /s/{token}, a random one of $links links (wrk, ${secs}s, 32 connections)"
random "$work/tokens" "$iphone"
echo "== cold, iPhone (no QR code): GET /s/{short id}, a random one of $links links (wrk, ${secs}s, 32 connections)"
random "$work/shorts" "$iphone"
echo "== cold: GET /s/{unknown short id}, a random one of 20,000 ids no link has (first pass reads the store, then the negative cache)"
python3 -c "
import random, string
a = string.digits + string.ascii_uppercase + string.ascii_lowercase
print(''.join('/s/' + ''.join(random.choice(a) for _ in range(11)) + '\n' for _ in range(20000)), end='')" >"$work/unknown"
random "$work/unknown"
kill -TERM "$pid"; wait "$pid" || true; pid=""
