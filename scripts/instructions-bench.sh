#!/usr/bin/env bash
# Instructions per request (docs/benchmarks.md, "Instructions per request"): each build given runs under valgrind's
# callgrind with one event loop; for GET /v1/resolve?url=<share URL>, GET /s/{token} (cached, with its preview) and
# POST /v1/resolve, 400 requests warm it, the counters are zeroed, 4,000 requests (8 keep-alive connections) run, and
# the instructions the daemon executed meanwhile (user space, every thread) are divided by the requests. A count, not
# a time: it does not move with what else runs on the machine, so two builds compare to a per cent in one run each —
# where the rates of scripts/serve-bench.sh drift by 10 %. (The kernel's share, the sockets, is not counted: it is
# the same for both builds.)
# Usage: scripts/instructions-bench.sh [BIN …]   (default .build/release/linkd, built first; needs valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh bench
if [ $# -eq 0 ]; then
  scripts/build-release.sh 2>&1 | grep -E "error:|complete" | tail -20
  set -- .build/release/linkd
fi
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "${origin_pid:-}" ] && kill "$origin_pid" 2>/dev/null; rm -rf "$work"' EXIT
. scripts/preview-origin.sh
start_preview_origin "$work"

cat >"$work/load.py" <<'PY'
import socket, sys, urllib.parse
base, method, path, body, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
u = urllib.parse.urlparse(base)
conns = [socket.create_connection((u.hostname, u.port)) for _ in range(8)]
req = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
if body:
    req += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
req = (req + "\r\n" + body).encode()
def read_one(c):
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += c.recv(65536)
    head, rest = buf.split(b"\r\n\r\n", 1)
    if not head.startswith(b"HTTP/1.1 200"):
        sys.exit(f"instructions-bench: {method} {path} answered {head[:40]!r}")
    length = int(next(l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length")))
    while len(rest) < length:
        rest += c.recv(65536)
done = 0
while done < n:
    for c in conns: c.sendall(req)
    for c in conns: read_one(c)
    done += len(conns)
print(done)
PY

for bin in "$@"; do
  # valgrind cannot read the debug information of the static release build: it runs a copy without it.
  strip -o "$work/linkd" "$bin"
  rm -rf "$work/data" "$work"/cg.*
  printf 'port: 0\nrateLimitPerSecond: 0\nlogLevel: warning\neventLoopThreads: 1\ndataDir: %s\n' "$work/data" >"$work/linkd.yaml"
  LINKD_MANIFESTS=$preview_manifests valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" \
    "$work/linkd" serve --config "$work/linkd.yaml" >"$work/out" 2>"$work/err" &
  pid=$!
  for _ in $(seq 1 900); do grep -q "listening on" "$work/out" 2>/dev/null && break; sleep 0.2; done
  base=$(sed -n 's/^linkd: listening on //p' "$work/out")
  [ -n "$base" ] || { cat "$work/err" >&2; exit 1; }
  admin=$(cat "$work/data/initial-admin-key")
  field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
  client=$(curl -sf -XPOST "$base/v1/admin/api-keys" -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
    -d '{"kind":"client","app":"handz","label":"bench"}' | field key)
  link=$(curl -sf -XPOST "$base/v1/links" -H "Authorization: Bearer $client" -H 'Content-Type: application/json' \
    -d '{"route":"ShareLink/FlowView","params":{"flowId":"6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b"}}')
  token=$(field token <<<"$link"); url=$(field url <<<"$link")
  enc=$(python3 -c "import urllib.parse,sys; print(urllib.parse.quote(sys.argv[1], safe=''))" "$url")
  for _ in $(seq 1 30); do curl -s "$base/s/$token" | grep -q "Morning flow" && break; sleep 1; done
  echo "== $bin"
  measure() {
    local name=$1 method=$2 path=$3 body=$4 n dump instructions
    python3 "$work/load.py" "$base" "$method" "$path" "$body" 400 >/dev/null
    callgrind_control -z "$pid" >/dev/null 2>&1
    n=$(python3 "$work/load.py" "$base" "$method" "$path" "$body" 4000)
    mkdir -p "$work/old"; mv "$work"/cg.$pid.* "$work/old/" 2>/dev/null || true
    callgrind_control -d "$pid" >/dev/null 2>&1
    for _ in $(seq 1 50); do ls "$work"/cg.$pid.* >/dev/null 2>&1 && break; sleep 0.2; done
    sleep 0.5
    dump=$(ls "$work"/cg.$pid.* | tail -1)
    instructions=$(awk '/^(summary|totals):/ {print $2; exit}' "$dump")
    awk -v n="$n" -v i="$instructions" -v name="$name" \
      'BEGIN { printf "%-14s %8.0f instructions per request (%d requests)\n", name, i / n, n }'
  }
  measure get-resolve GET "/v1/resolve?url=$enc&state=free" ""
  measure share-page GET "/s/$token" ""
  measure post-resolve POST "/v1/resolve" "{\"url\":\"$url\",\"state\":\"free\"}"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
done
