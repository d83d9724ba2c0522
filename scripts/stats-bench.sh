#!/usr/bin/env bash
# The cost of a year of analytics (docs/deferred-links.md): daily stats rows for LINKS links (default 100,000) over
# DAYS days (default 365) — every link on every day, the worst case — spread over the four example apps (link i of
# app i % 4: handz, coin, ordentus, story), in the schema linkd migrates, the rollups and daily tops built from them by
# linkd's own migrations (as on a deployment that upgrades with data), then the time of the stats endpoints themselves,
# through a running linkd (curl's total time, best of three, ranges ending today):
#   1. a link's year   (GET /v1/links/{id}/stats: one link of handz, DAYS day rows)
#   2. an app's view   (GET /v1/apps/handz/stats: LINKS/4 links, 30 and 92 days: its days, top 10, campaigns, referrers)
# It prints, last, the lines `app-30d-ms N`, `app-92d-ms N`, `link-365d-ms N` and `bytes N` (SQLite: the store
# file; PostgreSQL: the stats tables with their indexes), and whether the app's top links were provably exact.
# Usage: scripts/stats-bench.sh [sqlite|postgres|both]   (default sqlite; postgres uses scripts/test-postgres.sh)
#   LINKS=… DAYS=… to change the size; LINKD_BIN=… for another linkd (default .build/debug/linkd, built by
#   `swift build`); BEFORE_BIN=… a second linkd timed first on the same data, its figures printed as
#   `before-app-30d-ms N`… (a change's before and after in one sitting).
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-sqlite}
links=${LINKS:-100000}
days=${DAYS:-365}
bin=${LINKD_BIN:-.build/debug/linkd}
[ -x "$bin" ] || { echo "stats-bench: no $bin; run swift build first" >&2; exit 1; }
work=$(mktemp -d /tmp/linkd-stats-bench.XXXXXX)
pid=""
pg_root=""
# On exit: the daemon stopped, its directory and (PostgreSQL) its database dropped, whatever ended the run (an
# interrupt or a TERM exits through it too).
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"
  [ -z "$pg_root" ] || psql "$pg_root" -qc "DROP DATABASE IF EXISTS stats_bench_$$" >/dev/null 2>&1 || true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
last=$(( $(date +%s) / 86400 ))
first=$(( last - days + 1 ))
sample=$(( links / 8 * 4 ))   # the link number whose rows go to a link made through the API (of handz: i % 4 == 0)
link=""
admin=""
base=""

# Starts linkd on the data directory (and the database in $1, if any) until it listens (the migrations ran); sets base
# and admin.
serve() {
  mkdir -m 700 -p "$work/data"
  LINKD_DATABASE_URL=${1:-} LINKD_LOG_LEVEL=warning "${serving:-$bin}" serve --port 0 --data-dir "$work/data" >"$work/serve.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 36000); do grep -q "listening on" "$work/serve.log" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  grep -q "listening on" "$work/serve.log" || { cat "$work/serve.log" >&2; exit 1; }
  base=$(sed -n 's/^linkd: listening on //p' "$work/serve.log" | head -1)
  [ -f "$work/data/initial-admin-key" ] && admin=$(cat "$work/data/initial-admin-key")
  return 0
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""; }
# The first start: the schema, and the sample link made through the API (its rows are filled below).
first_start() {
  serve "${1:-}"
  link=$(curl -sf -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' "$base/v1/links" \
    -d '{"app": "handz", "params": {"flowId": "6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b"}}' | sed 's/.*"id":"\([0-9a-f]*\)".*/\1/')
  [ ${#link} = 32 ] || { echo "stats-bench: cannot make the sample link" >&2; exit 1; }
  stop
}
# Undoes the rollups' and daily tops' migrations (their tables; the (app, day) index the first dropped is not made
# again), so that the next start builds them from the day rows filled meanwhile.
unrollup() {
  echo "DROP TABLE app_stats_daily; DROP TABLE link_stats_monthly; DROP TABLE app_top_daily;
    DELETE FROM $1 WHERE $2 IN ('stats-rollups-v1', 'top-daily-v1');"
}

# The generated rows: link i of the app (i % 4), counters varying with link and day.
select_rows() { # $1: the link series, $2: the day series, $3: hex of a link number
  echo "SELECT CASE WHEN i = $sample THEN '$link' ELSE $3 END, d,
    CASE i % 4 WHEN 0 THEN 'handz' WHEN 1 THEN 'coin' WHEN 2 THEN 'ordentus' ELSE 'story' END, (i * 7 + d) % 13, (i * 3 + d) % 11, (i + d) % 5, (i + d) % 3, (i + d) % 2,
    (i * 5 + d) % 2, (i + d) % 2, (i + d) % 3 / 2, 0 FROM $1, $2"
}
counters="clicks_ios, clicks_android, clicks_desktop, previews, installs_ios, installs_android, claims_made,
  claims_claimed, claims_expired"
columns="linkId, day, app, $counters"
day_text() { date -u -d "@$(( $1 * 86400 ))" +%F; }

# The figures of BEFORE_BIN (when set, prefixed `before-`) and of LINKD_BIN, each started on the database in $1 (if any).
measure() {
  : >"$work/figures"
  if [ -n "${BEFORE_BIN:-}" ]; then
    echo "-- before: $BEFORE_BIN"
    serving=$BEFORE_BIN prefix=before- ; serve "${1:-}"; figures; stop
    echo "-- after: $bin"
  fi
  serving="" prefix="" ; serve "${1:-}"; figures; stop
}

# Times the stats endpoints through a running linkd (curl's total, in ms, best of three) and prints the figures.
figures() {
  local range path ms top
  ms=$(for _ in 1 2 3; do curl -sf -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $admin" \
    "$base/v1/links/$link/stats?from=$(day_text "$first")&to=$(day_text "$last")"; done | sort -g | head -1)
  echo "a link's $days days: $(awk -v s="$ms" 'BEGIN { printf "%.1f", s * 1000 }') ms"
  echo "${prefix:-}link-365d-ms $(awk -v s="$ms" 'BEGIN { printf "%.1f", s * 1000 }')" >>"$work/figures"
  for range in 30 92; do
    path="/v1/apps/handz/stats?from=$(day_text $(( last - range + 1 )))&to=$(day_text "$last")"
    ms=$(for _ in 1 2 3; do curl -sf -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $admin" "$base$path"; done | sort -g | head -1)
    top=$(curl -sf -H "Authorization: Bearer $admin" "$base$path" | grep -o '"topExact":[a-z]*' || true)
    echo "handz's view over $range days: $(awk -v s="$ms" 'BEGIN { printf "%.1f", s * 1000 }') ms ($top)"
    echo "${prefix:-}app-${range}d-ms $(awk -v s="$ms" 'BEGIN { printf "%.1f", s * 1000 }')" >>"$work/figures"
  done
}

bench_sqlite() {
  first_start
  local db="$work/data/linkd.sqlite"
  sqlite3 "$db" "$(unrollup grdb_migrations identifier)"
  echo "== SQLite: $links links × $days days"
  local start=$SECONDS
  # A page cache the size of the table: each page is written to the WAL once, at commit (a small one spills and
  # rewrites pages all through the fill).
  sqlite3 "$db" "PRAGMA synchronous = OFF; PRAGMA cache_size = -6000000;
    WITH RECURSIVE l(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM l WHERE i < $links - 1),
                   t(d) AS (SELECT $first UNION ALL SELECT d + 1 FROM t WHERE d < $last)
    INSERT INTO link_stats_daily ($columns) $(select_rows l t "printf('%032x', i)");
    PRAGMA wal_checkpoint(TRUNCATE);"
  echo "rows: $(sqlite3 "$db" 'SELECT count(*) FROM link_stats_daily'), filled in $(( SECONDS - start )) s"
  start=$SECONDS; serve
  echo "rollups and daily tops built by linkd's migrations in $(( SECONDS - start )) s"
  sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
  local used
  used=$(sqlite3 "$db" "SELECT (SELECT page_count FROM pragma_page_count) - (SELECT freelist_count FROM pragma_freelist_count)")
  used=$(( used * $(sqlite3 "$db" "PRAGMA page_size") ))
  echo "file: $(du -m "$db" | cut -f1) MiB ($(stat -c %s "$db") bytes) for the whole store, $used bytes in use (the rest free pages)"
  sqlite3 "$db" "SELECT name, sum(pgsize) / 1048576 || ' MiB' FROM dbstat WHERE name LIKE '%stats%' OR name LIKE '%top%' GROUP BY name" 2>/dev/null || true
  stop
  measure
  cat "$work/figures"; echo "bytes $used"
}

bench_postgres() {
  local url
  url=$(scripts/test-postgres.sh start | tail -1)
  pg_root=$url
  local name="stats_bench_$$"
  psql "$url" -qc "CREATE DATABASE $name" >/dev/null
  local db=${url%/*}/$name
  first_start "$db"
  psql "$db" -qc "$(unrollup linkd_migrations name)" >/dev/null
  echo "== PostgreSQL: $links links × $days days"
  local start=$SECONDS
  psql "$db" -qc "INSERT INTO link_stats_daily ($columns)
    $(select_rows "generate_series(0, $links - 1) AS l(i)" "generate_series($first, $last) AS t(d)" "lpad(to_hex(i), 32, '0')") ORDER BY 1, 2" >/dev/null
  psql "$db" -qc "VACUUM ANALYZE link_stats_daily" >/dev/null
  echo "rows: $(psql "$db" -tAc 'SELECT count(*) FROM link_stats_daily'), filled in $(( SECONDS - start )) s"
  start=$SECONDS; serve "$db"; stop
  psql "$db" -qc "VACUUM ANALYZE app_stats_daily" -c "VACUUM ANALYZE link_stats_monthly" -c "VACUUM ANALYZE app_top_daily" >/dev/null
  echo "rollups and daily tops built by linkd's migrations in $(( SECONDS - start )) s"
  local bytes
  bytes=$(psql "$db" -tAc "SELECT sum(pg_total_relation_size(t)) FROM unnest(ARRAY['link_stats_daily', 'app_stats_daily', 'link_stats_monthly', 'app_top_daily']) AS t")
  for table in link_stats_daily app_stats_daily link_stats_monthly app_top_daily; do
    echo "$table: $(psql "$db" -tAc "SELECT pg_size_pretty(pg_total_relation_size('$table'))") with its indexes"
  done
  measure "$db"
  cat "$work/figures"; echo "bytes $bytes"
  psql "$url" -qc "DROP DATABASE $name" >/dev/null
}

case "$which" in
  sqlite) bench_sqlite ;;
  postgres) bench_postgres ;;
  both) bench_sqlite; rm -rf "$work/data"; bench_postgres ;;
  *) echo "usage: scripts/stats-bench.sh [sqlite|postgres|both]" >&2; exit 2 ;;
esac
