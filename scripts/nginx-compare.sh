#!/usr/bin/env bash
# One load comparison of docs/benchmarks.md, "The daemon against nginx": GETs URL (a daemon on loopback) once, has
# nginx (one worker) serve that same body as a static file with the same Content-Type on another loopback port, then
# loads the URL and nginx in turn with wrk (1 thread, CONNECTIONS connections, SECONDS each) and prints both figures
# and their ratio. A figure alone says little on a shared machine; the ratio from one run is what counts.
# Usage: scripts/nginx-compare.sh URL [SECONDS] [CONNECTIONS]   (needs curl, wrk and nginx: apt-get install wrk nginx-light)
set -euo pipefail
url=${1:?usage: scripts/nginx-compare.sh URL [SECONDS] [CONNECTIONS]}
secs=${2:-10}
conns=${3:-32}
case "$url" in
  http://127.*|http://localhost[:/]*|http://\[::1\]*) ;;
  *) echo "nginx-compare: a loopback http:// URL only" >&2; exit 64 ;;
esac
nginx=$(command -v nginx || echo /usr/sbin/nginx)
for tool in curl wrk "$nginx"; do
  command -v "$tool" >/dev/null || { echo "nginx-compare: $tool is missing (apt-get install wrk nginx-light)" >&2; exit 69; }
done

dir=$(mktemp -d)
trap '[ -f "$dir/nginx.pid" ] && kill "$(cat "$dir/nginx.pid")" 2>/dev/null; rm -rf "$dir"' EXIT
type=$(curl -sS -o "$dir/body" -w '%{content_type}' "$url")
type=${type%%;*}
port=$((20000 + RANDOM % 20000))
cat >"$dir/nginx.conf" <<CONF
worker_processes 1; pid $dir/nginx.pid; error_log $dir/error.log; daemon on;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:$port; root $dir;
  location / { default_type ${type:-application/octet-stream}; try_files /body =404; } } }
CONF
"$nginx" -c "$dir/nginx.conf"
sleep 0.3

load() { wrk -t1 -c"$conns" -d"${secs}s" --latency "$1" 2>&1 || true; }
target=$(load "$url")
reference=$(load "http://127.0.0.1:$port/")
rps() { awk '/Requests\/sec/ {print $2}' <<<"$1"; }
p99() { awk '$1 == "99%" {print $2}' <<<"$1"; }
echo "body: $(stat -c %s "$dir/body") bytes, ${type:-application/octet-stream}"
echo "target: $(rps "$target") req/s  p99 $(p99 "$target")  $(grep -E 'Non-2xx|Socket errors' <<<"$target" || true)"
echo "nginx : $(rps "$reference") req/s  p99 $(p99 "$reference")"
awk -v a="$(rps "$target")" -v b="$(rps "$reference")" 'BEGIN { printf "ratio target/nginx: %.2f\n", (b > 0 ? a / b : 0) }'
