#!/usr/bin/env bash
# Writes scripts/linkd.order: the functions of the linkd binary that a start and the common journeys run, one
# mangled symbol a line, sorted. scripts/build-release.sh hands it to the linker (--symbol-ordering-file), which
# places those functions next to one another at the start of the code. The kernel maps a binary's code in 64 KB
# windows around each page touched (fault-around), so code run at start but spread over all 32 MB of it made two
# thirds of the code resident; packed together it is a few megabytes (docs/benchmarks.md, "Memory").
#
# How: the release build, stripped of its debug info (valgrind 3.19 cannot read DWARF 5), runs under callgrind twice:
# a first start on an empty data directory, then a second on the store the first left (links, a revocation, stats),
# which takes the paths of a start with data (the link cache's warm-up, the revocation set). Each run drives what
# people do most: an admin and a client key, links created, the share page by token and short id for four kinds of
# client, resolutions (GET and POST), the app-link page, the /.well-known/ files, the QR image, /healthz, /readyz,
# /metrics, a revocation and the 410 after it; then SIGTERM. The symbols callgrind saw run in the linkd binary are
# the list.
#
# When: after changes that add or rename much of what a start or a request runs. A stale list costs memory, not
# correctness: a symbol the binary no longer has is skipped, and a new function is placed after the listed ones.
# Two runs on the same code differ by a few dozen names (what the threads happen to run first), so a list written
# again without a code change is churn, not news. scripts/test-install.sh fails above 45 MB at start.
# Usage: scripts/symbol-order.sh          (installs valgrind through scripts/ensure-deps.sh bench)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh bench
scripts/build-release.sh 2>&1 | grep -E "error:|complete" | tail -20
work=$(mktemp -d /tmp/linkd-order.XXXXXX)
trap 'pkill -f "$work/linkd.yaml" 2>/dev/null || true; rm -rf "$work"' EXIT
objcopy --strip-debug .build/release/linkd "$work/linkd"
mkdir -m 700 "$work/data"
printf 'port: 0\nlogLevel: warning\nrateLimitPerSecond: 0\nclickFlushSeconds: 0.5\ndataDir: %s\n' "$work/data" >"$work/linkd.yaml"

for run in 1 2; do
  python3 - "$work" "$run" <<'PY'
import http.client, json, signal, subprocess, sys, time, urllib.parse
work, run = sys.argv[1], sys.argv[2]
log = open(f"{work}/out.{run}", "w")
proc = subprocess.Popen(
    ["valgrind", "--tool=callgrind", "--demangle=no", "--dump-instr=no", "--compress-strings=no",
     f"--callgrind-out-file={work}/callgrind.{run}", f"{work}/linkd", "serve", "--config", f"{work}/linkd.yaml"],
    stdout=log, stderr=subprocess.STDOUT)
port, began = None, time.monotonic()
while port is None:
    if time.monotonic() - began > 300 or proc.poll() is not None:
        sys.exit(f"symbol-order: linkd did not start (see {work}/out.{run})")
    for line in open(f"{work}/out.{run}"):
        if line.startswith("linkd: listening on "):
            port = int(line.rsplit(":", 1)[1])
    time.sleep(0.2)

def call(method, path, body=None, key=None, host="links.handz.example", agent="curl/8", expect=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Host": host, "User-Agent": agent}
    if key: headers["Authorization"] = f"Bearer {key}"
    if body is not None: headers["Content-Type"] = "application/json"
    c.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    r = c.getresponse(); data = r.read(); c.close()
    if expect and r.status != expect:
        sys.exit(f"symbol-order: {method} {path} answered {r.status}, not {expect}: {data[:200]!r}")
    return json.loads(data) if r.getheader("Content-Type", "").startswith("application/json") else data

admin = open(f"{work}/data/initial-admin-key").read().strip()
client = call("POST", "/v1/admin/api-keys", {"kind": "client", "app": "handz", "label": f"run {run}"}, admin, expect=201)["key"]
links = [call("POST", "/v1/links", {"params": {"flowId": "6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b"}, "owner": "u1",
                                    "title": f"Guard pass {n} <&>"}, client, expect=201) for n in range(5)]
agents = ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148",
          "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36",
          "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36",
          "facebookexternalhit/1.1"]
for round in range(3):
    for link in links:
        short = link["shortURL"].rsplit("/", 1)[1]
        for agent in agents:
            call("GET", f"/s/{link['token']}", agent=agent, expect=200)
            call("GET", f"/s/{short}", agent=agent, expect=200)
        for url in (link["url"], link["shortURL"]):
            call("GET", "/v1/resolve?" + urllib.parse.urlencode({"url": url, "state": "pro"}), expect=200)
            call("POST", "/v1/resolve", {"url": url, "state": "signedOut"}, expect=200)
        call("GET", f"/v1/links/{link['id']}", key=client, expect=200)
    call("GET", f"/s/{short}/qr.svg", expect=200)
    call("GET", "/flows/6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b", agent=agents[0], expect=200)
    call("GET", "/.well-known/apple-app-site-association", expect=200)
    call("GET", "/.well-known/assetlinks.json", expect=200)
    call("GET", "/s/AAAAAAAAAAA", agent=agents[2])
    for path in ("/healthz", "/readyz", "/metrics"):
        call("GET", path, host="127.0.0.1", expect=200)
call("DELETE", f"/v1/links/{links[0]['id']}", key=client, expect=200)
call("GET", f"/s/{links[0]['token']}", agent=agents[0], expect=410)
time.sleep(2)  # a flush of the counted openings
proc.send_signal(signal.SIGTERM)
proc.wait(timeout=300)
PY
done

# Written beside, then moved: a parse that fails leaves the committed list as it was, not cut short.
python3 - "$work"/callgrind.* >"$work/linkd.order" <<'PY'
import sys
names = set()
for path in sys.argv[1:]:
    obj = None
    for line in open(path, errors="replace"):
        if line.startswith("ob="):
            obj = line[3:].strip()
        elif line.startswith("fn=") and obj and obj.endswith("/linkd"):
            name = line[3:].strip()
            if not name.startswith("0x"):
                names.add(name)
print("\n".join(sorted(names)))
PY
mv "$work/linkd.order" scripts/linkd.order
echo "scripts/linkd.order: $(wc -l <scripts/linkd.order) symbols"
# SwiftPM does not count the list among the link's inputs: link again, so .build/release/linkd uses the new one.
rm -f .build/release/linkd
scripts/build-release.sh 2>&1 | grep -E "error:|complete" | tail -20
