#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback for the tests (Debian's postgresql package; ensure-deps installs it).
# Usage: scripts/test-postgres.sh start|stop|purge|restart|status [PORT]   (default port 25432: below the ephemeral range
# 32768–60999, so an outgoing connection cannot already hold it)
# The cluster lives in /tmp/linkd-test-pg-PORT, trusts loopback connections as user postgres, and is for tests
# only (fsync off). `start` is idempotent. Prints the database URL of the `postgres` database on start.
set -euo pipefail
# Close every inherited descriptor past stderr: the server started below would keep them open for its lifetime,
# and a parent that waits for a pipe or socket to close (Foundation's Process does) would wait forever.
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
done
command=${1:-start}
port=${2:-25432}
dir=${LINKD_TEST_PG_ROOT:-/tmp}/linkd-test-pg-$port
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "test-postgres: PostgreSQL is not installed; run scripts/ensure-deps.sh test" >&2
  exit 1
fi
# PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
options="-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=400"
running() { as_owner "$bindir/pg_ctl" status -D "$dir" >/dev/null 2>&1; }
stop_if_running() { if running; then as_owner "$bindir/pg_ctl" stop -D "$dir" -m fast -w >/dev/null; fi; }

case "$command" in
  start)
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$dir"
    chmod 700 "$dir"
    exec 9>"$dir.lock"
    flock 9
    if ! running; then
      if [ ! -f "$dir/PG_VERSION" ]; then
        as_owner "$bindir/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 --no-sync >"$dir.initdb.log" 2>&1 \
          || { cat "$dir.initdb.log" >&2; exit 1; }
      fi
      # The server must not inherit the lock (fd 9) or the caller's pipes.
      as_owner "$bindir/pg_ctl" start -D "$dir" -w -t 60 -l "$dir/server.log" -o "$options" \
        </dev/null >/dev/null 2>&1 9>&- || { tail -20 "$dir/server.log" >&2; exit 1; }
    fi
    echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
    ;;
  stop)
    stop_if_running
    exit 0
    ;;
  purge)
    # Stopped and removed (`make test` ends with it): every test makes a database of its own and leaves it, and a
    # cluster kept between runs had grown to 3,199 databases, 35 GB.
    stop_if_running
    rm -rf "$dir" "$dir.lock" "$dir.initdb.log"
    exit 0
    ;;
  restart)
    as_owner "$bindir/pg_ctl" restart -D "$dir" -m fast -w -t 60 -l "$dir/server.log" -o "$options" \
      </dev/null >/dev/null 2>&1 || { tail -20 "$dir/server.log" >&2; exit 1; }
    ;;
  status)
    running && echo running || { echo stopped; exit 3; }
    ;;
  *)
    echo "usage: $0 start|stop|purge|restart|status [PORT]" >&2
    exit 2
    ;;
esac
