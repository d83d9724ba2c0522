#!/usr/bin/env bash
# The share page over HTTPS (keep-alive) against nginx over HTTPS serving the same bytes, in one run
# (docs/benchmarks.md, "HTTPS"): the release linkd with its TLS listener (LOOPS event-loop threads, default 1 — the
# core budget of nginx's one worker; wrk takes the other core) and nginx with one worker, both with the same P-256
# certificate (made here with the openssl tool) and TLS 1.3; wrk -t1 over 32 keep-alive connections to each. The
# share page's preview comes from an origin on loopback and is cached (as in scripts/serve-bench.sh), so both answer
# from memory. Printed: each one's req/s and p50/p99, and the ratio; then the same for a new connection per request
# (a full handshake each time, `Connection: close`), which measures the handshake rather than the page.
# Usage: scripts/tls-bench.sh [SECONDS] [CONNECTIONS]   (LINKD_BIN: another build; wrk and nginx from Debian)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
conns=${2:-32}
loops=${LOOPS:-1}
scripts/ensure-deps.sh build
need=(); command -v wrk >/dev/null || need+=(wrk); command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
if ((${#need[@]})); then apt-get install -y -qq "${need[@]}" >/dev/null; fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
bin=${LINKD_BIN:-.build/release/linkd}
[ -n "${LINKD_BIN:-}" ] || scripts/build-release.sh 2>&1 | grep -E "error:|complete" | tail -5
work=$(mktemp -d)
pid=""
origin_pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$origin_pid" ] && kill "$origin_pid" 2>/dev/null;
      [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null; rm -rf "$work"' EXIT

# One certificate for both servers.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=links.handz.example \
  -addext subjectAltName=DNS:links.handz.example -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null

. scripts/preview-origin.sh
start_preview_origin "$work"
export LINKD_MANIFESTS=$preview_manifests
cat >"$work/linkd.yaml" <<YAML
port: 0
rateLimitPerSecond: 0
logLevel: warning
eventLoopThreads: $loops
dataDir: $work/data
tls:
  port: 0
  certificates: [{ certificate: $work/cert.pem, privateKey: $work/key.pem }]
YAML
"$bin" serve --config "$work/linkd.yaml" >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 300); do grep -q "TLS listening on" "$work/out" 2>/dev/null && break; sleep 0.1; done
base=$(sed -n 's/^linkd: listening on //p' "$work/out")
tls_port=$(sed -n 's/^linkd: TLS listening on https:\/\/.*:\([0-9]*\)$/\1/p' "$work/out")
[ -n "$tls_port" ] || { cat "$work/err" >&2; exit 1; }
admin=$(cat "$work/data/initial-admin-key")
post() { curl -sf -XPOST "$base$1" -H "Authorization: Bearer $2" -H 'Content-Type: application/json' -d "$3"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
client=$(post /v1/admin/api-keys "$admin" '{"kind":"client","app":"handz","label":"bench"}' | field key)
token=$(post /v1/links "$client" '{"params":{"flowId":"6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b"}}' | field token)
page="https://links.handz.example:$tls_port/s/$token"
resolve=(--resolve "links.handz.example:$tls_port:127.0.0.1" --cacert "$work/cert.pem")
for _ in $(seq 1 20); do curl -s "${resolve[@]}" "$page" | grep -q "Morning flow" && break; sleep 1; done
ctype=$(curl -s "${resolve[@]}" -o "$work/body" -w '%{content_type}' "$page"); ctype=${ctype%%;*}
chmod 755 "$work"; chmod 644 "$work/body"  # nginx's worker (not root) reads the body; the key stays 0600

# nginx, one worker, the same certificate and bytes.
nginx_port=$((20000 + RANDOM % 20000))
cat >"$work/nginx.conf" <<CONF
worker_processes 1; pid $work/nginx.pid; error_log $work/error.log; daemon on;
events { worker_connections 1024; }
http { access_log off; keepalive_requests 1000000;
  server { listen 127.0.0.1:$nginx_port ssl; ssl_certificate $work/cert.pem; ssl_certificate_key $work/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3; root $work; location / { default_type $ctype; try_files /body =404; } } }
CONF
"$nginx_bin" -c "$work/nginx.conf"
sleep 0.3

run() { wrk -t1 -c"$conns" -d"${secs}s" --latency "$@" 2>&1 || true; }
rps() { awk '/Requests\/sec/ {print $2}' <<<"$1"; }
pct() { awk -v p="$2" '$1==p {print $2}' <<<"$1"; }
errs() { awk '/Non-2xx|Socket errors/ {printf "%s ", $0}' <<<"$1"; }  # with Connection: close, wrk counts each close as a read error
report() {
  echo "linkd: $(rps "$1") req/s  p50 $(pct "$1" 50%)  p99 $(pct "$1" 99%)  $(errs "$1")"
  echo "nginx: $(rps "$2") req/s  p50 $(pct "$2" 50%)  p99 $(pct "$2" 99%)  $(errs "$2")"
  awk -v a="$(rps "$1")" -v b="$(rps "$2")" 'BEGIN { printf "ratio linkd/nginx: %.2f\n", a/b }'
}
echo "share page over HTTPS: $(stat -c %s "$work/body") bytes, $ctype; $conns connections, ${secs} s, linkd eventLoopThreads $loops"
echo "-- keep-alive"
a=$(run "https://127.0.0.1:$tls_port/s/$token"); b=$(run "https://127.0.0.1:$nginx_port/")
report "$a" "$b"
echo "-- a new connection (full handshake) per request"
a=$(run -H "Connection: close" "https://127.0.0.1:$tls_port/s/$token"); b=$(run -H "Connection: close" "https://127.0.0.1:$nginx_port/")
report "$a" "$b"
