#!/usr/bin/env bash
# Cold start with a large store (docs/benchmarks.md, "Cold start"): linkd's SQLite store filled with LINKS links
# (default 1,000,000; link i of the four example apps in turn, a tenth of them revoked, with their revocations), then
# STARTS starts (default 3) of the release build, each timed from the exec to the first 200 of `/healthz` (polled
# every millisecond) and to the first 200 of `/readyz` (the revocation set loaded: it loads after the listener opens),
# with the resident size at the first /healthz and two seconds later.
# Prints `healthz-ms N` and `readyz-ms N` (the slowest start), `rss-start-mb N` and `rss-2s-mb N` (the largest).
# Usage: scripts/coldstart-bench.sh   LINKS=… STARTS=… LINKD_BIN=… (default .build/release/linkd, built first)
#   EXTRA_CONF='key: value\n…' prepends configuration lines (e.g. 'linkCacheWarmup: false\n').
set -euo pipefail
cd "$(dirname "$0")/.."
links=${LINKS:-1000000}
starts=${STARTS:-3}
scripts/ensure-deps.sh bench
if [ -z "${LINKD_BIN:-}" ]; then
  scripts/build-release.sh 2>&1 | grep -E "error:|complete" | tail -20
fi
bin=${LINKD_BIN:-.build/release/linkd}
work=$(mktemp -d /tmp/linkd-coldstart.XXXXXX)
trap 'pkill -f "$work/linkd.yaml" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -m 700 "$work/data"
printf "${EXTRA_CONF:-}port: 0\nlogLevel: warning\ndataDir: %s\n" "$work/data" >"$work/linkd.yaml"

# The first start: schema, keys. Then the rows, as an upgrade with data would find them.
"$bin" serve --config "$work/linkd.yaml" >"$work/out" 2>&1 &
pid=$!
for _ in $(seq 1 300); do grep -q "listening on" "$work/out" && break; sleep 0.1; done
kill "$pid"; wait "$pid" 2>/dev/null || true
start=$SECONDS
sqlite3 "$work/data/linkd.sqlite" "PRAGMA synchronous = OFF; PRAGMA cache_size = -2000000;
  WITH RECURSIVE l(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM l WHERE i < $links - 1)
  INSERT INTO links (id, app, route, params, owner, title, created, expires, generation, status, short_id)
  SELECT printf('%032x', i), CASE i % 4 WHEN 0 THEN 'handz' WHEN 1 THEN 'coin' WHEN 2 THEN 'ordentus' ELSE 'story' END,
    'ShareLink/FlowView', '{\"flowId\":\"6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b\"}', 'owner' || (i % 1000), NULL,
    '2026-01-01 00:00:00.000', '2027-01-01 00:00:00.000', CASE i % 10 WHEN 0 THEN 2 ELSE 1 END,
    CASE i % 10 WHEN 0 THEN 'revoked' ELSE 'active' END, printf('c%010d', i) FROM l;
  INSERT INTO revocations (linkId, generation, revokedAt) SELECT id, 1, '2026-06-01 00:00:00.000' FROM links WHERE status = 'revoked';
  PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
echo "store: $links links, $(sqlite3 "$work/data/linkd.sqlite" 'SELECT count(*) FROM revocations') revocations, $(du -m "$work/data/linkd.sqlite" | cut -f1) MiB, filled in $(( SECONDS - start )) s"

worst=0 worst_ready=0 rss_start=0 rss_later=0
for n in $(seq 1 "$starts"); do
  out=$(python3 - "$bin" "$work/linkd.yaml" "$work/out.$n" <<'PY'
import http.client, subprocess, sys, time
bin, config, log = sys.argv[1:4]
began = time.monotonic()
proc = subprocess.Popen([bin, "serve", "--config", config], stdout=open(log, "w"), stderr=subprocess.STDOUT)
port = None
while port is None and time.monotonic() - began < 120:
    for line in open(log):
        if line.startswith("linkd: listening on "):
            port = int(line.rsplit(":", 1)[1])
    time.sleep(0.001)
def first_200(path):
    """Milliseconds from the exec to the first 200 of `path`, polled every millisecond."""
    while time.monotonic() - began < 120:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            c.request("GET", path)
            if c.getresponse().status == 200:
                break
        except OSError:
            pass
        time.sleep(0.001)
    return (time.monotonic() - began) * 1000
def status(field):
    return next(int(l.split()[1]) for l in open(f"/proc/{proc.pid}/status") if l.startswith(field + ":")) / 1024
ms = first_200("/healthz")
first_rss = status("VmRSS")
first_anon = status("RssAnon")
# Ready: the revocation set loaded (in the background, after the listener opened) and the store answering.
ready_ms = first_200("/readyz")
def rss():
    return status("VmRSS")
first = first_rss
time.sleep(2)
later = rss()
proc.terminate(); proc.wait()
print(f"{ms:.0f} {ready_ms:.0f} {first:.1f} {later:.1f} {first_anon:.1f}")
PY
)
  read -r ms ready first later anon <<<"$out"
  echo "start $n: /healthz 200 after $ms ms, /readyz 200 after $ready ms, rss $first MB at /healthz ($anon MB anonymous: the rest is the binary's mapped pages), $later MB 2 s later"
  worst=$(( ms > worst ? ms : worst ))
  worst_ready=$(( ready > worst_ready ? ready : worst_ready ))
  rss_start=$(awk -v a="$rss_start" -v b="$first" 'BEGIN { print (b > a ? b : a) }')
  rss_later=$(awk -v a="$rss_later" -v b="$later" 'BEGIN { print (b > a ? b : a) }')
done
echo "healthz-ms $worst"
echo "readyz-ms $worst_ready"
echo "rss-start-mb $rss_start"
echo "rss-2s-mb $rss_later"
