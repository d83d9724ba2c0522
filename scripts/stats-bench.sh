#!/usr/bin/env bash
# The cost of a year of analytics (docs/deferred-links.md): daily stats rows for LINKS links (default 100,000) over
# DAYS days (default 365) — every link on every day, the worst case — in the schema linkd migrates, the rollups
# built from them by linkd's own `stats-rollups-v1` migration (as on a deployment that upgrades with data), then the
# time of the statements the stats endpoints run (the SQL of SQLiteBackend+Deferred / PostgresBackend+Deferred and
# StatsRollups.topLinksSQL, for ranges ending today):
#   1. a link's year   (GET /v1/links/{id}/stats: one link, DAYS day rows)
#   2. an app by day   (GET /v1/apps/{app}/stats: an app of LINKS/4 links, 30 and 92 days: its app_stats_daily rows)
#   3. an app's top 10 (the same app and ranges: link_stats_monthly rows, and day rows of the partial months)
# It prints, last, the lines `app-30d-ms N`, `app-92d-ms N` (2 + 3, best of three runs each), `link-365d-ms N` (1)
# and `bytes N` (SQLite: the store file; PostgreSQL: the three stats tables with their indexes).
# Usage: scripts/stats-bench.sh [sqlite|postgres|both]   (default sqlite; postgres uses scripts/test-postgres.sh)
#   LINKS=… DAYS=… to change the size; LINKD_BIN=… for another linkd (default .build/debug/linkd, built by
#   `swift build`: the migrations run through it).
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
rollups="stats-rollups-v1"

# Starts linkd on the data directory (and the database in $1, if any) until it listens: the migrations ran.
migrate() {
  mkdir -m 700 -p "$work/data"
  LINKD_DATABASE_URL=${1:-} LINKD_LOG_LEVEL=warning "$bin" serve --port 0 --data-dir "$work/data" >"$work/serve.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 36000); do grep -q "listening on" "$work/serve.log" && break; sleep 0.1; done
  grep -q "listening on" "$work/serve.log" || { cat "$work/serve.log" >&2; exit 1; }
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}
# Undoes the rollups migration (its tables; the (app, day) index it dropped is not made again), so that the next
# start builds them from the day rows filled meanwhile.
unrollup() { echo "DROP TABLE app_stats_daily; DROP TABLE link_stats_monthly; DELETE FROM $1 WHERE $2 = '$rollups';"; }

# The generated rows: link i of app (i % 4), counters varying with link and day.
select_rows() { # $1: the link series, $2: the day series, $3: hex of a link number
  echo "SELECT $3, d, 'app' || (i % 4), (i * 7 + d) % 13, (i * 3 + d) % 11, (i + d) % 5, (i + d) % 3, (i + d) % 2,
    (i * 5 + d) % 2, (i + d) % 2, (i + d) % 3 / 2, 0 FROM $1, $2"
}
counters="clicks_ios, clicks_android, clicks_desktop, previews, installs_ios, installs_android, claims_made,
  claims_claimed, claims_expired"
columns="linkId, day, app, $counters"
sums="CAST(sum(clicks_ios) AS bigint), CAST(sum(clicks_android) AS bigint), CAST(sum(clicks_desktop) AS bigint),
  CAST(sum(previews) AS bigint), CAST(sum(installs_ios) AS bigint), CAST(sum(installs_android) AS bigint),
  CAST(sum(claims_made) AS bigint), CAST(sum(claims_claimed) AS bigint), CAST(sum(claims_expired) AS bigint)"
prefixed() { echo "$counters" | tr -d '\n' | tr ',' '\n' | sed "s/^ *//; s/^/$1/" | paste -sd, | sed 's/,/, /g'; }
dom() { date -u -d "@$(( $1 * 86400 ))" +%-d; }   # the day of the month of day number $1
month_end() { local s=$(( $1 - $(dom "$1") + 1 )); local next=$(( s + 31 )); echo $(( next - $(dom "$next") )); }

# StatsRollups.topLinksSQL for app0 over days $1…$2.
top_sql() {
  local from=$1 to=$2 parts=() month end lo hi inside length
  local whole="SELECT linkId, $counters FROM link_stats_monthly WHERE app = 'app0' AND month ="
  local join="FROM link_stats_monthly m JOIN link_stats_daily d ON d.linkId = m.linkId AND"
  month=$(( from - $(dom "$from") + 1 ))
  while [ "$month" -le "$to" ]; do
    end=$(month_end "$month")
    lo=$(( from > month ? from : month )); hi=$(( to < end ? to : end ))
    inside=$(( hi - lo + 1 )); length=$(( end - month + 1 ))
    if [ "$inside" = "$length" ]; then parts+=("$whole $month")
    elif [ $(( inside * 2 )) -le "$length" ]; then
      parts+=("SELECT d.linkId, $(prefixed d.) $join d.day BETWEEN $lo AND $hi WHERE m.app = 'app0' AND m.month = $month")
    else
      parts+=("$whole $month")
      local negated="SELECT d.linkId, $(prefixed -d.) $join d.day BETWEEN"
      [ "$lo" -gt "$month" ] && parts+=("$negated $month AND $(( lo - 1 )) WHERE m.app = 'app0' AND m.month = $month")
      [ "$hi" -lt "$end" ] && parts+=("$negated $(( hi + 1 )) AND $end WHERE m.app = 'app0' AND m.month = $month")
    fi
    month=$(( end + 1 ))
  done
  local union="" part
  for part in "${parts[@]}"; do union="${union:+$union UNION ALL }$part"; done
  echo "SELECT linkId, $sums FROM ($union) AS parts GROUP BY linkId HAVING sum($(echo "$counters" | tr -d '\n' | sed 's/, */ + /g')) > 0 ORDER BY sum(clicks_ios + clicks_android + clicks_desktop) DESC, linkId LIMIT 10;" | tr '\n' ' '
}
queries() { # the statements, one per line, with the range of the last $1 days: a link's year, the app's days, its top
  local from=$(( last - $1 + 1 ))
  { echo "SELECT day, $counters FROM link_stats_daily WHERE linkId = '$link' AND day BETWEEN $first AND $last ORDER BY day;"
    echo "SELECT day, $counters FROM app_stats_daily WHERE app = 'app0' AND day BETWEEN $from AND $last ORDER BY day;"
  } | tr '\n' ' ' | sed 's/; /;\n/g'; echo; top_sql "$from" "$last"; echo
}
min() { tr ' ' '\n' | grep . | sort -g | head -1; }
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f\n", a + b }'; }

# Times the statements of 30- and 92-day ranges with $1 (a command reading one statement, printing its ms) and
# prints the figures.
figures() {
  local runner=$1 range sql index ms link_ms app_ms
  for range in 30 92; do
    index=0; app_ms=0
    while IFS= read -r sql; do
      [ -n "$sql" ] || continue
      ms=$(for _ in 1 2 3; do "$runner" "$sql"; done | tr '\n' ' ')
      echo "$(echo "a link's $days days|app0 by day|app0 top 10" | cut -d'|' -f$(( index + 1 ))) ($range-day app range): ms per run: $ms"
      ms=$(echo "$ms" | min)
      if [ "$index" = 0 ]; then link_ms=$ms; else app_ms=$(add "$app_ms" "$ms"); fi
      index=$(( index + 1 ))
    done < <(queries "$range")
    echo "app-${range}d-ms $app_ms" >>"$work/figures"
  done
  echo "link-365d-ms $link_ms" >>"$work/figures"
}

sqlite_ms() { printf '.timer on\n%s\n' "$1" | sqlite3 "$work/data/linkd.sqlite" | grep '^Run Time' | awk '{printf "%.1f\n", $4 * 1000}'; }

bench_sqlite() {
  migrate
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
  start=$SECONDS; migrate
  echo "rollups built by linkd's migration in $(( SECONDS - start )) s"
  sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
  local used
  used=$(sqlite3 "$db" "SELECT (SELECT page_count FROM pragma_page_count) - (SELECT freelist_count FROM pragma_freelist_count)")
  used=$(( used * $(sqlite3 "$db" "PRAGMA page_size") ))
  echo "file: $(du -m "$db" | cut -f1) MiB ($(stat -c %s "$db") bytes) for the whole store, $used bytes in use (the rest free pages)"
  sqlite3 "$db" "SELECT name, sum(pgsize) / 1048576 || ' MiB' FROM dbstat WHERE name LIKE '%stats%' GROUP BY name" 2>/dev/null || true
  : >"$work/figures"
  figures sqlite_ms
  cat "$work/figures"; echo "bytes $used"
}

postgres_db=""
postgres_ms() { psql "$postgres_db" -c '\timing on' -c "$1" | grep '^Time:' | awk '{print $2}'; }

bench_postgres() {
  local url
  url=$(scripts/test-postgres.sh start | tail -1)
  local name="stats_bench_$$"
  psql "$url" -qc "CREATE DATABASE $name" >/dev/null
  local db=${url%/*}/$name
  postgres_db=$db
  migrate "$db"
  psql "$db" -qc "$(unrollup linkd_migrations name)" >/dev/null
  echo "== PostgreSQL: $links links × $days days"
  local start=$SECONDS
  psql "$db" -qc "INSERT INTO link_stats_daily ($columns)
    $(select_rows "generate_series(0, $links - 1) AS l(i)" "generate_series($first, $last) AS t(d)" "lpad(to_hex(i), 32, '0')") ORDER BY 1, 2" >/dev/null
  psql "$db" -qc "VACUUM ANALYZE link_stats_daily" >/dev/null
  echo "rows: $(psql "$db" -tAc 'SELECT count(*) FROM link_stats_daily'), filled in $(( SECONDS - start )) s"
  start=$SECONDS; migrate "$db"
  psql "$db" -qc "VACUUM ANALYZE app_stats_daily" -c "VACUUM ANALYZE link_stats_monthly" >/dev/null
  echo "rollups built by linkd's migration in $(( SECONDS - start )) s"
  local bytes
  bytes=$(psql "$db" -tAc "SELECT sum(pg_total_relation_size(t)) FROM unnest(ARRAY['link_stats_daily', 'app_stats_daily', 'link_stats_monthly']) AS t")
  for table in link_stats_daily app_stats_daily link_stats_monthly; do
    echo "$table: $(psql "$db" -tAc "SELECT pg_size_pretty(pg_total_relation_size('$table'))") with its indexes"
  done
  : >"$work/figures"
  figures postgres_ms
  cat "$work/figures"; echo "bytes $bytes"
  psql "$url" -qc "DROP DATABASE $name" >/dev/null
}

case "$which" in
  sqlite) bench_sqlite ;;
  postgres) bench_postgres ;;
  both) bench_sqlite; rm -rf "$work/data"; bench_postgres ;;
  *) echo "usage: scripts/stats-bench.sh [sqlite|postgres|both]" >&2; exit 2 ;;
esac
