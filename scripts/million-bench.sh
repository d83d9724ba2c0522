#!/usr/bin/env bash
# The share page over a million links (docs/benchmarks.md, "A million links"): a SQLite store filled with LINKS links
# (default 1,000,000, COIN's Canvas: its manifest fetches no origin preview, so the figure is linkd's own) after
# linkd's first start, then GET /s/<short id> with wrk (32 connections, SECONDS each, eventLoopThreads: 1) three ways:
#   cached   one link, always in memory (the ceiling);
#   zipf     link rank r drawn with probability ∝ 1/r (a few links take most opens, a long tail of one-off hits);
#   uniform  every link equally likely (a crawler walking the store: no page is met twice).
# Waits until the link cache's warm-up (linkCacheWarmup) has stopped growing, then prints `cached-rps N`, `zipf-rps N`,
# `uniform-rps N` with their p99, the resident size after each and its peak during it (read every 0.2 s), what the
# daemon wrote to disk during it (the flushes of the openings counted: /proc/<pid>/io's write_bytes), their ratios to
# the cached figure, and the daemon's resident size after the runs (`rss-mb N`).
# Usage: scripts/million-bench.sh [SECONDS]   LINKS=… LINKD_BIN=… (default .build/release/linkd, built first)
#   MODES='zipf zipf zipf': the runs to make, in order (default 'cached zipf uniform'; the ratios need all three).
#   STORE=postgres: the links in a database of the test PostgreSQL (scripts/test-postgres.sh; dropped after) instead
#   of SQLite; with EXTRA_CONF='fullResyncSeconds: 10\n' and runs longer than that, the runs cross full reloads.
#   EXTRA_CONF='key: value\n…' prepends configuration lines (e.g. 'linkCacheMegabytes: 200\n', 'clickFlushSeconds: 1\n').
#   PERF_OUT=FILE [PERF_MODE=uniform]: a CPU profile of the daemon (perf record -g) during that mode's run, for
#   `perf report -i FILE` (needs linux-perf).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
links=${LINKS:-1000000}
scripts/ensure-deps.sh bench
if [ -z "${LINKD_BIN:-}" ]; then
  scripts/build-release.sh 2>&1 | grep -E "error:|complete" | tail -20
fi
bin=${LINKD_BIN:-.build/release/linkd}
store=${STORE:-sqlite}
work=$(mktemp -d /tmp/linkd-million.XXXXXX)
pid=""
pg_root="" pg_name=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  [ -n "$pg_name" ] && psql "$pg_root" -qc "DROP DATABASE IF EXISTS $pg_name" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -m 700 "$work/data"
printf "${EXTRA_CONF:-}port: 0\nrateLimitPerSecond: 0\nlogLevel: warning\neventLoopThreads: 1\ndataDir: %s\n" "$work/data" >"$work/linkd.yaml"
case "$store" in
  sqlite) ;;
  postgres)
    pg_root=$(scripts/test-postgres.sh start | tail -1)
    pg_name="million_bench_$$"
    psql "$pg_root" -qc "CREATE DATABASE $pg_name" >/dev/null
    echo "database: ${pg_root%/*}/$pg_name" >>"$work/linkd.yaml" ;;
  *) echo "million-bench: STORE must be sqlite or postgres" >&2; exit 2 ;;
esac

start() {
  "$bin" serve --config "$work/linkd.yaml" >"$work/out" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do grep -q "listening on" "$work/out" && break; sleep 0.1; done
  base=$(sed -n 's/^linkd: listening on //p' "$work/out")
  [ -n "$base" ] || { cat "$work/out" >&2; exit 1; }
}
start; kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
begin=$SECONDS
if [ "$store" = sqlite ]; then
  sqlite3 "$work/data/linkd.sqlite" "PRAGMA synchronous = OFF; PRAGMA cache_size = -2000000;
    WITH RECURSIVE l(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM l WHERE i < $links - 1)
    INSERT INTO links (id, app, route, params, owner, title, created, expires, generation, status, short_id)
    SELECT printf('%032x', i), 'coin', 'Canvas', '{\"coinId\":\"coin-' || i || '\"}', NULL, 'COIN ' || i,
      '2026-01-01 00:00:00.000', '2036-01-01 00:00:00.000', 1, 'active', printf('m%010d', i) FROM l;
    PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
  size="$(du -m "$work/data/linkd.sqlite" | cut -f1) MiB"
else
  # The same links, ids and short ids as in SQLite.
  psql "${pg_root%/*}/$pg_name" -qc "INSERT INTO links (id, app, route, params, owner, title, created, expires, generation, status, short_id)
    SELECT lpad(to_hex(i), 32, '0'), 'coin', 'Canvas', '{\"coinId\":\"coin-' || i || '\"}', NULL, 'COIN ' || i,
      timestamptz '2026-01-01 00:00:00+00', timestamptz '2036-01-01 00:00:00+00', 1, 'active', 'm' || lpad(i::text, 10, '0')
    FROM generate_series(0, $links - 1) AS i" -c "VACUUM ANALYZE links" >/dev/null
  size="$(psql "${pg_root%/*}/$pg_name" -tAc "SELECT pg_total_relation_size('links') / 1048576") MiB in PostgreSQL"
fi
seq -f 'm%010g' 0 $(( links - 1 )) >"$work/ids"
echo "store: $links links, $size, filled in $(( SECONDS - begin )) s"

cat >"$work/pick.lua" <<'LUA'
local ids = {}
for line in io.lines(os.getenv("MILLION_IDS")) do ids[#ids + 1] = line end
local n, mode = #ids, os.getenv("MILLION_MODE")
local seeded = false
request = function()
  if not seeded then math.randomseed(os.time() + math.floor(os.clock() * 1e6)); seeded = true end
  local i = 1
  if mode == "uniform" then i = math.random(n)
  elseif mode == "zipf" then i = math.min(n, math.floor(math.exp(math.random() * math.log(n + 1))))
  end
  return wrk.format("GET", "/s/" .. ids[i])
end
LUA

start
started=$SECONDS   # a run's start is printed from here: the daemon's start, which full reloads are timed from
curl -sf -o /dev/null "$base/s/m0000000000" || { echo "million-bench: /s/m0000000000 does not answer" >&2; exit 1; }
echo "rss at start: $(awk '/VmRSS/ {printf "%.1f MB", $2/1024}' "/proc/$pid/status")"
# The link cache fills in the background (linkCacheWarmup); the runs start once it has stopped growing.
warm_start=$SECONDS
cached_links() { curl -sf "$base/metrics" | awk '$1 == "linkd_link_cache_records" { printf "%d", $2 }'; }
last=-1
for _ in $(seq 1 300); do
  now=$(cached_links)
  [ "$now" = "$last" ] && break
  last=$now
  sleep 1
done
echo "link cache: $last records, $(curl -sf "$base/metrics" | awk '$1 == "linkd_link_cache_bytes" { printf "%.1f MB", $2 / 1048576 }') after $(( SECONDS - warm_start )) s; rss $(awk '/VmRSS/ {printf "%.1f MB", $2/1024}' "/proc/$pid/status")"
declare -A rps
for mode in ${MODES:-cached zipf uniform}; do
  perf_pid=""
  if [ -n "${PERF_OUT:-}" ] && [ "$mode" = "${PERF_MODE:-uniform}" ]; then
    perf record -q -g -p "$pid" -o "$PERF_OUT" -- sleep "$secs" 2>/dev/null &
    perf_pid=$!
  fi
  written=$(awk '$1 == "write_bytes:" { print $2 }' "/proc/$pid/io")
  # The resident size read every 0.2 s through the run: its peak, which the figure read after the run can miss; and
  # the records in the link cache every 0.5 s: their fewest (a cache emptied and warmed again shows here).
  (while kill -0 "$pid" 2>/dev/null; do awk '/VmRSS/ { print $2 }' "/proc/$pid/status"; sleep 0.2; done) >"$work/rss-$mode" &
  sampler=$!
  (while kill -0 "$pid" 2>/dev/null; do cached_links; echo; sleep 0.5; done) >"$work/cache-$mode" &
  cache_sampler=$!
  run_start=$(( SECONDS - started ))
  out=$(MILLION_IDS="$work/ids" MILLION_MODE=$mode wrk -t 1 -c 32 -d "${secs}s" --latency -s "$work/pick.lua" "$base")
  rps[$mode]=$(awk '/^Requests\/sec:/ { printf "%d", $2 }' <<<"$out")
  p99=$(awk '$1 == "99%" { print $2 }' <<<"$out")
  errors=$(grep -E "Non-2xx|Socket errors" <<<"$out" || true)
  written=$(awk -v before="$written" '$1 == "write_bytes:" { printf "%.0f", ($2 - before) / 1048576 }' "/proc/$pid/io")
  kill "$sampler" "$cache_sampler" 2>/dev/null; wait "$sampler" "$cache_sampler" 2>/dev/null || true
  peak=$(sort -n "$work/rss-$mode" | tail -1)
  fewest=$(grep -E '^[0-9]+$' "$work/cache-$mode" | sort -n | head -1)
  echo "$mode-rps ${rps[$mode]} p99 $p99 ${errors:+($errors) }rss-after $(awk '/VmRSS/ {printf "%.1f MB", $2/1024}' "/proc/$pid/status") rss-peak $(( ${peak:-0} / 1024 )) MB disk-written $written MB cache-fewest ${fewest:-?} (began ${run_start} s after the start)"
  [ -z "$perf_pid" ] || wait "$perf_pid"
done
if [ -n "${rps[cached]:-}" ] && [ -n "${rps[zipf]:-}" ] && [ -n "${rps[uniform]:-}" ]; then
  awk -v c="${rps[cached]}" -v z="${rps[zipf]}" -v u="${rps[uniform]}" \
    'BEGIN { printf "zipf/cached %.2f (target ≥ 0.80), uniform/cached %.2f (target ≥ 0.25)\n", z / c, u / c }'
fi
echo "rss-mb $(awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$pid/status")   (target < 200)"
