#!/usr/bin/env bash
# The PostgreSQL issue's throughput figure, measured on this machine against the release build:
# POST /v1/resolve of a share URL (wrk, 32 connections per instance) with one linkd instance on PostgreSQL, then
# with two instances on the same database, each loaded by its own wrk at the same time (the rates are summed).
# The propagation figure (median and worst over 100 revocations) is printed by the ClusterTests test.
# Usage: scripts/cluster-bench.sh [SECONDS]      (needs wrk: apt-get install wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
scripts/ensure-deps.sh test
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
scripts/build-release.sh 2>&1 | grep -E "error:|Compiling linkd|complete" | tail -5
bin=.build/release/linkd
port=25460
work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; scripts/test-postgres.sh stop $port; rm -rf "$work"' EXIT
scripts/test-postgres.sh start $port >/dev/null
db="bench_$RANDOM$RANDOM"
psql -X -q "postgres://postgres@127.0.0.1:$port/postgres" -c "CREATE DATABASE $db"
export LINKD_DATABASE_URL="postgres://postgres@127.0.0.1:$port/$db?sslmode=disable"
export LINKD_MASTER_KEY=$(python3 -c "import base64,os; print(base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip('='))")
printf 'rateLimitPerSecond: 0\nlogLevel: warning\n' >"$work/linkd.yaml"

# start NAME: runs an instance; sets base_NAME.
start() {
  "$bin" serve --port 0 --data-dir "$work/$1" --config "$work/linkd.yaml" >"$work/$1.out" 2>"$work/$1.err" &
  pids+=($!)
  for _ in $(seq 1 300); do grep -q "listening on" "$work/$1.out" 2>/dev/null && break; sleep 0.1; done
  local base; base=$(sed -n 's/^linkd: listening on //p' "$work/$1.out")
  [ -n "$base" ] || { cat "$work/$1.err" >&2; exit 1; }
  printf -v "base_$1" '%s' "$base"
}
start a
admin=$(cat "$work/a/initial-admin-key")
post() { curl -sf -XPOST "$base_a$1" -H "Authorization: Bearer $2" -H 'Content-Type: application/json' -d "$3"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
client=$(post /v1/admin/api-keys "$admin" '{"kind":"client","app":"handz","label":"bench"}' | field key)
url=$(post /v1/links "$client" '{"route":"ShareLink/FlowView","params":{"flowId":"6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b"}}' | field url)
curl -s -XPOST "$base_a/v1/resolve" -H 'Content-Type: application/json' -d "{\"url\":\"$url\",\"state\":\"free\"}" \
  | grep -q '"outcome":"route"' || { echo "cluster-bench: the share URL does not resolve to a route" >&2; exit 1; }
cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"url":"$url","state":"free"}'
LUA
rate() { awk '/Requests\/sec/ {print $2}' "$1"; }
p99() { awk '$1 == "99%" {print $2}' "$1"; }

echo "== one instance: POST /v1/resolve (wrk, ${secs}s, 32 connections)"
wrk -t1 -c32 -d"${secs}s" --latency -s "$work/post.lua" "$base_a/v1/resolve" >"$work/one.txt"
echo "one instance: $(rate "$work/one.txt") req/s, p99 $(p99 "$work/one.txt")"

start b
echo "== two instances on the same database, loaded at the same time (wrk each, ${secs}s, 32 connections each)"
wrk -t1 -c32 -d"${secs}s" --latency -s "$work/post.lua" "$base_a/v1/resolve" >"$work/two-a.txt" &
w=$!
wrk -t1 -c32 -d"${secs}s" --latency -s "$work/post.lua" "$base_b/v1/resolve" >"$work/two-b.txt"
wait $w
ra=$(rate "$work/two-a.txt"); rb=$(rate "$work/two-b.txt")
echo "instance A: $ra req/s, p99 $(p99 "$work/two-a.txt"); instance B: $rb req/s, p99 $(p99 "$work/two-b.txt")"
python3 -c "import sys; a,b,o=map(float,sys.argv[1:]); print(f'two instances together: {a+b:.0f} req/s = {(a+b)/o:.2f}x one instance')" "$ra" "$rb" "$(rate "$work/one.txt")"
grep -h "Non-2xx\|Socket errors" "$work"/*.txt || echo "no errors"
