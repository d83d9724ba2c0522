#!/usr/bin/env bash
# The cost of importing links (docs/imports.md): a CSV of ROWS rows (default 100,000) for handz — route, params,
# owner, title; no custom paths (an app holds at most 200) — and an FDL export of ROWS rows for coin (short links on
# coin.page.link, long links with ofl and utm_*), each POSTed to /v1/admin/imports with curl on a freshly started
# linkd: curl's total time, the body's bytes, the report's counts, and linkd's resident memory before and its peak
# (VmHWM) after. Then the CSV again: every row alreadyPresent (the idempotent second run), timed the same way.
# Usage: scripts/import-bench.sh [sqlite|postgres]   (default sqlite; postgres uses scripts/test-postgres.sh)
#   ROWS=… to change the size; LINKD_BIN=… for another linkd (default .build/release/linkd: scripts/build-release.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-sqlite}
rows=${ROWS:-100000}
bin=${LINKD_BIN:-.build/release/linkd}
[ -x "$bin" ] || { echo "import-bench: no $bin; run scripts/build-release.sh first (or LINKD_BIN=.build/debug/linkd)" >&2; exit 1; }
work=$(mktemp -d /tmp/linkd-import-bench.XXXXXX)
pid=""
database=""
url=""
# On exit: the daemon stopped, its directory and (PostgreSQL) its database dropped, whatever ended the run (an
# interrupt or a TERM exits through it too).
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"
  [ -z "$url" ] || psql "$url" -qc "DROP DATABASE IF EXISTS import_bench_$$" >/dev/null 2>&1 || true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ "$which" = postgres ]; then
  url=$(scripts/test-postgres.sh start | tail -1)
  psql "$url" -qc "CREATE DATABASE import_bench_$$" >/dev/null
  database=${url%/*}/import_bench_$$
fi

mkdir -m 700 -p "$work/data"
LINKD_DATABASE_URL=$database LINKD_LOG_LEVEL=warning "$bin" serve --port 0 --data-dir "$work/data" >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 3000); do grep -q "listening on" "$work/serve.log" && break; sleep 0.1; done
grep -q "listening on" "$work/serve.log" || { cat "$work/serve.log" >&2; exit 1; }
base=$(sed -n 's/^linkd: listening on //p' "$work/serve.log" | head -1)
admin=$(cat "$work/data/initial-admin-key")
# linkd's resident set now and its peak so far, in MB.
memory() { awk '/^VmRSS/ {rss=$2} /^VmHWM/ {hwm=$2} END {printf "rss-mb %.1f peak-mb %.1f", rss/1024, hwm/1024}' "/proc/$pid/status"; }

python3 - "$rows" "$work" <<'PY'
import sys
rows, work = int(sys.argv[1]), sys.argv[2]
with open(work + "/links.csv", "w") as f:
    f.write("route,params_json,owner,title\n")
    for i in range(rows):
        f.write('ShareLink/FlowView,"{""flowId"":""%08x-1d2b-4c55-9a7e-1c2d3e4f5a6b""}",user-%d,"Flow number %d, ""quoted"""\n'
                % (i, i % 1000, i))
with open(work + "/fdl.csv", "w") as f:
    f.write("Short link,Long link,Link name\n")
    for i in range(rows):
        f.write("https://coin.page.link/m%x,https://coin.page.link/?link=https%%3A%%2F%%2Flinks.coin.example%%2Fcoin%%2Fc%d"
                "&apn=com.coin&ofl=https%%3A%%2F%%2Fcoin.example&utm_source=news&utm_campaign=w48,Coin %d\n" % (i, i, i))
PY
echo "import-bench: linkd started ($which): $(memory)"

# Imports $1 as format $2 into app $3 and prints the figures.
run() {
  local file=$1 format=$2 app=$3 label=$4
  timing=$(curl -sS -o "$work/report.json" -w '%{http_code} %{time_total} %{size_upload}' -H "Authorization: Bearer $admin" \
    -H 'Content-Type: text/csv' --data-binary "@$file" "$base/v1/admin/imports?app=$app&format=$format")
  read -r code seconds bytes <<<"$timing"
  [ "$code" = 200 ] || { echo "import-bench: $label answered $code: $(head -c 300 "$work/report.json")" >&2; exit 1; }
  counts=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("rows %d imported %d alreadyPresent %d refused %d notes %d" % (r["rows"], r["imported"], r["alreadyPresent"], r["refusedTotal"], r["notesTotal"]))' "$work/report.json")
  echo "import-bench: $label $counts seconds $seconds bytes $bytes $(memory)"
}
run "$work/links.csv" csv handz "csv"
run "$work/links.csv" csv handz "csv-again"
run "$work/fdl.csv" fdl coin "fdl"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
