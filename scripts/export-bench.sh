#!/usr/bin/env bash
# The cost of exporting an app's links (docs/api.md, "Exporting links"): LINKS links (default 100,000) of handz made
# through the API (POST /v1/links over 16 keep-alive connections; each with an owner, a title and a campaign), then
# linkd restarted (so its peak memory is the export's, not the links' making) and
# GET /v1/links/export?app=handz&format=F timed for
# F = csv and ndjson, one after the other: curl's total time, the body's bytes, and linkd's resident memory before
# and its peak (VmHWM) after each. A last run reads the NDJSON export at 2 MB/s (a slow reader: backpressure) and
# prints the same.
# Usage: scripts/export-bench.sh [sqlite|postgres]   (default sqlite; postgres uses scripts/test-postgres.sh)
#   LINKS=… to change the size; LINKD_BIN=… for another linkd (default .build/debug/linkd, built by `swift build`).
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-sqlite}
links=${LINKS:-100000}
bin=${LINKD_BIN:-.build/debug/linkd}
[ -x "$bin" ] || { echo "export-bench: no $bin; run swift build first" >&2; exit 1; }
work=$(mktemp -d /tmp/linkd-export-bench.XXXXXX)
pid=""
database=""
url=""
# On exit: the daemon stopped, its directory and (PostgreSQL) its database dropped, whatever ended the run (an
# interrupt or a TERM exits through it too).
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"
  [ -z "$url" ] || psql "$url" -qc "DROP DATABASE IF EXISTS export_bench_$$" >/dev/null 2>&1 || true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ "$which" = postgres ]; then
  url=$(scripts/test-postgres.sh start | tail -1)
  psql "$url" -qc "CREATE DATABASE export_bench_$$" >/dev/null
  database=${url%/*}/export_bench_$$
fi
admin=""
base=""

# Starts linkd on the data directory until it listens; sets base and admin.
serve() {
  mkdir -m 700 -p "$work/data"
  : >"$work/serve.log"
  LINKD_DATABASE_URL=$database LINKD_LOG_LEVEL=warning "$bin" serve --port 0 --data-dir "$work/data" >"$work/serve.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 3000); do grep -q "listening on" "$work/serve.log" && break; sleep 0.1; done
  grep -q "listening on" "$work/serve.log" || { cat "$work/serve.log" >&2; exit 1; }
  base=$(sed -n 's/^linkd: listening on //p' "$work/serve.log" | head -1)
  [ -f "$work/data/initial-admin-key" ] && admin=$(cat "$work/data/initial-admin-key")
  return 0
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""; }
# linkd's resident set now and its peak so far, in MB.
memory() { awk '/^VmRSS/ {rss=$2} /^VmHWM/ {hwm=$2} END {printf "rss-mb %.1f peak-mb %.1f", rss/1024, hwm/1024}' "/proc/$pid/status"; }

serve
echo "export-bench: making $links links of handz through POST /v1/links ($which)"
started=$(date +%s)
# 16 keep-alive connections, each posting its share of the links in turn (Python's http.client: no process per link).
python3 - "$base" "$admin" "$links" >"$work/codes" <<'PY'
import http.client, json, sys, threading, urllib.parse
base, key, total = sys.argv[1], sys.argv[2], int(sys.argv[3])
url = urllib.parse.urlsplit(base)
codes, lock = {}, threading.Lock()
def make(first):
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    for i in range(first, total, 16):
        body = json.dumps({"app": "handz", "params": {"flowId": "%08x-1d2b-4c55-9a7e-1c2d3e4f5a6b" % i},
                           "owner": "user-%d" % (i % 1000), "title": 'Flow number %d, "quoted"' % i,
                           "campaign": {"source": "news", "name": "week %d" % (i % 52)}})
        connection.request("POST", "/v1/links", body, {"Authorization": "Bearer " + key, "Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        with lock: codes[response.status] = codes.get(response.status, 0) + 1
threads = [threading.Thread(target=make, args=(n,)) for n in range(16)]
for t in threads: t.start()
for t in threads: t.join()
for status, count in codes.items(): print("%d %d" % (status, count))
PY
made=$(awk '$1 == 201 {print $2}' "$work/codes")
echo "export-bench: made $made links in $(( $(date +%s) - started )) s"
[ "$made" = "$links" ] || { cat "$work/codes" >&2; exit 1; }
stop

serve
sleep 1
echo "export-bench: linkd restarted: $(memory)"
for format in csv ndjson; do
  timing=$(curl -sS -o "$work/export.$format" -w '%{http_code} %{time_total} %{size_download}' \
    -H "Authorization: Bearer $admin" "$base/v1/links/export?app=handz&format=$format")
  read -r code seconds bytes <<<"$timing"
  [ "$code" = 200 ] || { echo "export-bench: $format answered $code" >&2; exit 1; }
  lines=$(wc -l <"$work/export.$format")
  echo "export-bench: $format links $links lines $lines seconds $seconds bytes $bytes $(memory)"
done
timing=$(curl -sS -o /dev/null --limit-rate 2M -w '%{http_code} %{time_total} %{size_download}' \
  -H "Authorization: Bearer $admin" "$base/v1/links/export?app=handz&format=ndjson")
read -r code seconds bytes <<<"$timing"
echo "export-bench: ndjson at 2 MB/s seconds $seconds bytes $bytes $(memory)"
stop
