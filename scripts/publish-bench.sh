#!/usr/bin/env bash
# Manifest publishes under load (docs/benchmarks.md, "Publishing under load"): wrk drives the share page (its preview
# from an origin on loopback, cached, as scripts/serve-bench.sh has it) and GET /v1/resolve of a live Handz link while
# PUBLISHES publishes of the Handz manifest go through the admin API, one after another (two texts in turn, each a
# screen more than the example). Printed, for each endpoint: wrk's req/s, p50/p99 and non-2xx count without
# publishes, then during them; and the publishes' statuses and latencies.
# Usage: scripts/publish-bench.sh [SECONDS] [PUBLISHES]   (release build; wrk from Debian's packages)
#   LOOPS: event-loop threads (default 1: wrk takes the other core of a 2-core machine).
#   LINKD_BIN: another build to measure (the figures without publishes of an older build, for a before/after; its
#   publishes fail when it has no publishing, which the summary shows).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
publishes=${2:-100}
loops=${LOOPS:-1}
scripts/ensure-deps.sh build
command -v wrk >/dev/null || apt-get install -y wrk >/dev/null
bin=${LINKD_BIN:-.build/release/linkd}
[ -n "${LINKD_BIN:-}" ] || scripts/build-release.sh 2>&1 | grep -E "error:|complete" | tail -5
work=$(mktemp -d)
pid=""
origin_pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$origin_pid" ] && kill "$origin_pid" 2>/dev/null; rm -rf "$work"' EXIT

# A preview origin on loopback (one JSON answer for every item), and the Handz manifest pointed at it.
. scripts/preview-origin.sh
start_preview_origin "$work"
export LINKD_MANIFESTS=$preview_manifests

printf 'port: 0\nrateLimitPerSecond: 0\nlogLevel: warning\neventLoopThreads: %s\ndataDir: %s\n' "$loops" "$work/data" >"$work/linkd.yaml"
"$bin" serve --config "$work/linkd.yaml" >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 300); do grep -q "listening on" "$work/out" 2>/dev/null && break; sleep 0.1; done
base=$(sed -n 's/^linkd: listening on //p' "$work/out")
[ -n "$base" ] || { cat "$work/err" >&2; exit 1; }
admin=$(cat "$work/data/initial-admin-key")
post() { curl -sf -XPOST "$base$1" -H "Authorization: Bearer $2" -H 'Content-Type: application/json' -d "$3"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
client=$(post /v1/admin/api-keys "$admin" '{"kind":"client","app":"handz","label":"bench"}' | field key)
link=$(post /v1/links "$client" '{"params":{"flowId":"6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b"}}')
token=$(field token <<<"$link"); url=$(field url <<<"$link")
enc=$(python3 -c "import urllib.parse,sys; print(urllib.parse.quote(sys.argv[1], safe=''))" "$url")
# The first visit fetches the preview; then the page is rendered from memory.
for _ in $(seq 1 20); do curl -s -H 'Host: links.handz.example' "$base/s/$token" | grep -q "Morning flow" && break; sleep 1; done

# Two manifest texts, published in turn: the example with one more Library screen, and with another.
for n in 1 2; do
  python3 - "$n" "$work/handz.yaml" >"$work/publish-$n.json" <<'PY'
import json, sys
n = sys.argv[1]
text = open(sys.argv[2]).read()
screen = f"  - {{ id: Library/Bench{n}, tab: library, presentation: push, states: [free, pro, trial], parent: Library/Home, patterns: [/bench-{n}] }}\n"
anchor = "  - { id: ShareLink/Unavailable,"
print(json.dumps({"manifest": text.replace(anchor, screen + anchor)}))
PY
done

# wrk's figures: req/s, p50, p99, non-2xx.
summary() {
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
rps = re.search(r"Requests/sec:\s+([\d.]+)", text).group(1)
p50 = re.search(r"\s50%\s+(\S+)", text).group(1)
p99 = re.search(r"\s99%\s+(\S+)", text).group(1)
bad = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
errors = re.search(r"Socket errors: (.*)", text)
print(f"{float(rps):>10.0f} req/s  p50 {p50:>8}  p99 {p99:>8}  non-2xx {bad.group(1) if bad else 0}"
      + (f"  socket errors: {errors.group(1)}" if errors else ""))
PY
}

# Publishes one after another until PUBLISHES are done; each line: status and seconds.
publish_loop() {
  for i in $(seq 1 "$publishes"); do
    curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -XPUT "$base/v1/admin/apps/handz/manifest" \
      -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' --data-binary "@$work/publish-$(( i % 2 + 1 )).json"
  done >"$work/publishes"
}

run() {  # NAME PATH HOST
  echo "== $1 (wrk, ${secs}s, 32 connections, eventLoopThreads $loops)"
  wrk -t1 -c32 -d"${secs}s" --latency -H "Host: $3" "$base$2" >"$work/quiet"
  printf '   without publishes: '; summary "$work/quiet"
  publish_loop &
  publisher=$!
  wrk -t1 -c32 -d"${secs}s" --latency -H "Host: $3" "$base$2" >"$work/busy"
  wait "$publisher"
  printf '   during publishes:  '; summary "$work/busy"
  python3 - "$work/publishes" <<'PY'
import sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
statuses = {}
for status, _ in rows: statuses[status] = statuses.get(status, 0) + 1
times = sorted(float(t) * 1000 for _, t in rows)
print(f"   publishes: {len(rows)}, statuses {statuses}, latency median {times[len(times)//2]:.1f} ms, max {times[-1]:.1f} ms")
PY
}

run "GET /s/{token}" "/s/$token" links.handz.example
run "GET /v1/resolve?url=<share URL>&state=free" "/v1/resolve?url=$enc&state=free" 127.0.0.1
curl -sf "$base/v1/admin/apps" -H "Authorization: Bearer $admin" 2>/dev/null | python3 -c '
import json, sys
print("   handz is at version", next(a["version"] for a in json.load(sys.stdin)["apps"] if a["app"] == "handz"))' || true
