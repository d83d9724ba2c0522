#!/usr/bin/env bash
# The cost of a year of analytics (docs/deferred-links.md): daily stats rows for LINKS links (default 100,000) over
# DAYS days (default 365) — every link on every day, the worst case — in the schema linkd migrates (`deferred-v1`),
# then the time of the statements the stats endpoints run (the SQL of SQLiteBackend+Deferred / PostgresBackend+Deferred):
#   1. a link's year   (GET /v1/links/{id}/stats: one link, 365 day rows)
#   2. an app by day   (GET /v1/apps/{app}/stats: an app of LINKS/4 links, 30 and 92 days, summed per day)
#   3. an app's top 10 (the same app and ranges, summed per link, ordered by clicks)
# Usage: scripts/stats-bench.sh [sqlite|postgres|both]   (default sqlite; postgres uses scripts/test-postgres.sh)
#   LINKS=… DAYS=… to change the size; LINKD_BIN=… for another linkd (default .build/debug/linkd, built by
#   `swift build`: only the migration runs through it).
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-sqlite}
links=${LINKS:-100000}
days=${DAYS:-365}
bin=${LINKD_BIN:-.build/debug/linkd}
[ -x "$bin" ] || { echo "stats-bench: no $bin; run swift build first" >&2; exit 1; }
work=$(mktemp -d /tmp/linkd-stats-bench.XXXXXX)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
last=$(( $(date +%s) / 86400 ))
first=$(( last - days + 1 ))
link=$(printf '%032x' $(( links / 2 + 2 )))   # a link of app0 (i % 4 == 0)

# Starts linkd on a fresh data directory (and the database in $1, if any) until it listens: the migrations ran.
migrate() {
  mkdir -m 700 -p "$work/data"
  LINKD_DATABASE_URL=${1:-} LINKD_LOG_LEVEL=warning "$bin" serve --port 0 --data-dir "$work/data" >"$work/serve.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do grep -q "listening on" "$work/serve.log" && break; sleep 0.1; done
  grep -q "listening on" "$work/serve.log" || { cat "$work/serve.log" >&2; exit 1; }
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}

# The generated rows: link i of app (i % 4), counters varying with link and day.
select_rows() { # $1: the link series, $2: the day series, $3: hex of a link number
  echo "SELECT $3, d, 'app' || (i % 4), (i * 7 + d) % 13, (i * 3 + d) % 11, (i + d) % 5, (i + d) % 3, (i + d) % 2,
    (i * 5 + d) % 2, (i + d) % 2, (i + d) % 3 / 2, 0 FROM $1, $2"
}
columns="linkId, day, app, clicks_ios, clicks_android, clicks_desktop, previews, installs_ios, installs_android,
  claims_made, claims_claimed, claims_expired"
sums="CAST(sum(clicks_ios) AS bigint), CAST(sum(clicks_android) AS bigint), CAST(sum(clicks_desktop) AS bigint),
  CAST(sum(previews) AS bigint), CAST(sum(installs_ios) AS bigint), CAST(sum(installs_android) AS bigint),
  CAST(sum(claims_made) AS bigint), CAST(sum(claims_claimed) AS bigint), CAST(sum(claims_expired) AS bigint)"
queries() { # the statements, one per line, with the range of the last $1 days
  local from=$(( last - $1 + 1 ))
  { echo "SELECT day, clicks_ios, clicks_android, clicks_desktop, previews, installs_ios, installs_android, claims_made, claims_claimed, claims_expired FROM link_stats_daily WHERE linkId = '$link' AND day BETWEEN $first AND $last ORDER BY day;"
  echo "SELECT day, $sums FROM link_stats_daily WHERE app = 'app0' AND day BETWEEN $from AND $last GROUP BY day ORDER BY day;"
  echo "SELECT linkId, $sums FROM link_stats_daily WHERE app = 'app0' AND day BETWEEN $from AND $last GROUP BY linkId ORDER BY sum(clicks_ios + clicks_android + clicks_desktop) DESC, linkId LIMIT 10;"
  } | tr '\n' ' ' | sed 's/; /;\n/g'; echo
}
labels=("a link's $days days" "app0 by day" "app0 top 10")

bench_sqlite() {
  migrate
  local db="$work/data/linkd.sqlite"
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
  echo "file: $(du -m "$db" | cut -f1) MiB ($(stat -c %s "$db") bytes) for the whole store"
  sqlite3 "$db" "SELECT name, sum(pgsize) / 1048576 || ' MiB' FROM dbstat WHERE name LIKE 'link_stats%' GROUP BY name" 2>/dev/null || true
  for range in 30 92; do
    local index=0
    while IFS= read -r sql; do
      [ -n "$sql" ] || continue
      [ "$range" = 92 ] && [ "$index" = 0 ] && { index=1; continue; }
      # Three runs; the page cache is warm after the fill (as on a server that has run a while).
      local times
      times=$(for _ in 1 2 3; do printf '.timer on\n%s\n' "$sql" | sqlite3 "$db" | grep '^Run Time' | awk '{print $4}'; done | tr '\n' ' ')
      echo "${labels[$index]} (${range}-day app range): real s per run: $times"
      index=$(( index + 1 ))
    done < <(queries "$range")
  done
}

bench_postgres() {
  local url
  url=$(scripts/test-postgres.sh start | tail -1)
  local name="stats_bench_$$"
  psql "$url" -qc "CREATE DATABASE $name" >/dev/null
  local db=${url%/*}/$name
  migrate "$db"
  echo "== PostgreSQL: $links links × $days days"
  local start=$SECONDS
  psql "$db" -qc "INSERT INTO link_stats_daily ($columns)
    $(select_rows "generate_series(0, $links - 1) AS l(i)" "generate_series($first, $last) AS t(d)" "lpad(to_hex(i), 32, '0')") ORDER BY 1, 2" >/dev/null
  psql "$db" -qc "VACUUM ANALYZE link_stats_daily" >/dev/null
  echo "rows: $(psql "$db" -tAc 'SELECT count(*) FROM link_stats_daily'), filled in $(( SECONDS - start )) s"
  echo "table + indexes: $(psql "$db" -tAc "SELECT pg_size_pretty(pg_total_relation_size('link_stats_daily'))")" \
    "(table $(psql "$db" -tAc "SELECT pg_size_pretty(pg_relation_size('link_stats_daily'))"))"
  for range in 30 92; do
    local index=0
    while IFS= read -r sql; do
      [ -n "$sql" ] || continue
      [ "$range" = 92 ] && [ "$index" = 0 ] && { index=1; continue; }
      local times
      times=$(for _ in 1 2 3; do psql "$db" -c '\timing on' -c "$sql" | grep '^Time:' | awk '{print $2}'; done | tr '\n' ' ')
      echo "${labels[$index]} (${range}-day app range): ms per run: $times"
      index=$(( index + 1 ))
    done < <(queries "$range")
  done
  psql "$url" -qc "DROP DATABASE $name" >/dev/null
}

case "$which" in
  sqlite) bench_sqlite ;;
  postgres) bench_postgres ;;
  both) bench_sqlite; rm -rf "$work/data"; bench_postgres ;;
  *) echo "usage: scripts/stats-bench.sh [sqlite|postgres|both]" >&2; exit 2 ;;
esac
