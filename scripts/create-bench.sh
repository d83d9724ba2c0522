#!/usr/bin/env bash
# Link creation in bulk (docs/benchmarks.md, "Link creation"): POST /v1/links with wrk, 32 connections, against the
# release build, then the crash check — the same load again, `kill -9` in its middle, and every link the API
# acknowledged (201, its id read by wrk) looked for in the store after the kill.
# Prints `create-per-s N` (the rate over the measured run) and `acknowledged N stored-of-them N lost N` (the crash
# check: lost must be 0).
# Usage: scripts/create-bench.sh [SECONDS] [sqlite|postgres|both]   (default 10 s, sqlite)
#   CONNECTIONS=… (default 32); LINKD_BIN=… another linkd (default .build/release/linkd, built first);
#   BEFORE_BIN=… a second linkd measured first, in the same sitting, its figure printed as `before-create-per-s N`;
#   PERF_OUT=FILE: a CPU profile of the daemon (perf record -g) during the measured run of LINKD_BIN.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
which=${2:-sqlite}
conns=${CONNECTIONS:-32}
scripts/ensure-deps.sh bench
if [ -z "${LINKD_BIN:-}" ]; then
  scripts/build-release.sh 2>&1 | grep -E "error:|complete" | tail -20
fi
bin=${LINKD_BIN:-.build/release/linkd}
[ -x "$bin" ] || { echo "create-bench: no $bin" >&2; exit 1; }
work=$(mktemp -d /tmp/linkd-create-bench.XXXXXX)
pid=""
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$work"' EXIT
pg_url=""

# start BIN DATA_DIR [DATABASE_URL]: linkd serve with rate limits off; sets pid, base, key (a Handz client key).
start() {
  mkdir -m 700 -p "$2"
  printf 'port: 0\nrateLimitPerSecond: 0\nlogLevel: warning\ndataDir: %s\n' "$2" >"$work/linkd.yaml"
  LINKD_DATABASE_URL=${3:-} "$1" serve --config "$work/linkd.yaml" >"$work/out" 2>"$work/err" &
  pid=$!
  for _ in $(seq 1 600); do grep -q "listening on" "$work/out" 2>/dev/null && break; sleep 0.1; done
  base=$(sed -n 's/^linkd: listening on //p' "$work/out")
  [ -n "$base" ] || { cat "$work/err" >&2; exit 1; }
  local admin
  admin=$(cat "$2/initial-admin-key")
  key=$(curl -sf -XPOST "$base/v1/admin/api-keys" -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
    -d '{"kind":"client","app":"handz","label":"create-bench"}' | python3 -c "import json,sys; print(json.load(sys.stdin)['key'])")
}

# The wrk script: one Handz link per request; each thread writes the ids of the links acknowledged (201) to a file.
cat >"$work/create.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"route":"ShareLink/FlowView","params":{"flowId":"6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b"}}'
local count = 0
function setup(thread) count = count + 1; thread:set("number", count) end
function init(args)
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("CREATE_BENCH_KEY")
  ids = io.open(os.getenv("CREATE_BENCH_IDS") .. "." .. number, "w")
end
function response(status, headers, body)
  if status == 201 then
    local id = string.match(body, '"id":"(%x+)"')
    if id then ids:write(id, "\n"); ids:flush() end
  end
end
LUA

# The measured run's script: the same requests, without the per-response bookkeeping (a Lua callback and a write per
# answer cost wrk about as much CPU as the daemon spends, on the cores they share). It counts non-201 answers.
sed -e '/^function response/,/^end/d' -e 's/^  ids = io.open.*$//' "$work/create.lua" >"$work/create-fast.lua"

# load SECONDS [SCRIPT]: wrk against the running daemon; prints wrk's summary.
load() {
  CREATE_BENCH_KEY=$key CREATE_BENCH_IDS="$work/ids" wrk -t 2 -c "$conns" -d "${1}s" -s "$work/${2:-create.lua}" "$base/v1/links"
}

# stored_ids STORE DATA_DIR: every link id in the store, sorted.
stored_ids() {
  if [ "$1" = sqlite ]; then
    sqlite3 "$2/linkd.sqlite" "SELECT id FROM links" | sort
  else
    psql "$pg_url" -tAc "SELECT id FROM links" | sort
  fi
}

# run STORE BIN PREFIX: the measured run and the crash check with one linkd.
run() {
  local store=$1 run_bin=$2 prefix=$3 dir="$work/data-$RANDOM" db="" root="" out rate
  if [ "$store" = postgres ]; then
    local name="create_bench_$$_$RANDOM"
    root=$(scripts/test-postgres.sh start | tail -1)
    psql "$root" -qc "CREATE DATABASE $name" >/dev/null
    db=${root%/*}/$name
    pg_url=$db
  fi
  start "$run_bin" "$dir" "$db"
  echo "-- $store, $run_bin: POST /v1/links, ${secs}s, $conns connections"
  rm -f "$work"/ids.*
  local perf_pid=""
  if [ -n "${PERF_OUT:-}" ] && [ -z "$prefix" ]; then
    perf record -q -g -p "$pid" -o "$PERF_OUT" -- sleep "$secs" 2>/dev/null &
    perf_pid=$!
  fi
  out=$(load "$secs" create-fast.lua)
  [ -z "$perf_pid" ] || wait "$perf_pid"
  echo "$out" | grep -E "Requests/sec|Latency|Non-2xx|Socket errors" || true
  rate=$(awk '/^Requests\/sec:/ { printf "%d", $2 }' <<<"$out")
  echo "${prefix}create-per-s $rate"

  # The crash check: the same load, kill -9 half-way through it.
  rm -f "$work"/ids.*
  load 4 >"$work/crash.out" 2>&1 &
  local wrk_pid=$!
  sleep 2
  kill -9 "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  wait "$wrk_pid" || true
  sort "$work"/ids.* >"$work/acknowledged"
  stored_ids "$store" "$dir" >"$work/stored"
  local acknowledged lost
  acknowledged=$(wc -l <"$work/acknowledged")
  lost=$(comm -23 "$work/acknowledged" "$work/stored" | wc -l)
  echo "${prefix}acknowledged $acknowledged stored-of-them $(( acknowledged - lost )) lost $lost (kill -9 during the load)"
  if [ "$store" = postgres ]; then psql "$root" -qc "DROP DATABASE ${db##*/}" >/dev/null; fi
  [ "$lost" = 0 ] || { echo "create-bench: $lost acknowledged links lost" >&2; exit 1; }
}

for store in $([ "$which" = both ] && echo "sqlite postgres" || echo "$which"); do
  case "$store" in sqlite|postgres) ;; *) echo "usage: scripts/create-bench.sh [SECONDS] [sqlite|postgres|both]" >&2; exit 2 ;; esac
  echo "== $store: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ -n "${BEFORE_BIN:-}" ]; then run "$store" "$BEFORE_BIN" before-; fi
  run "$store" "$bin" ""
done
