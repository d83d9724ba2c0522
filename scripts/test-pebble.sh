#!/usr/bin/env bash
# A throwaway ACME server on loopback for the tests: Let's Encrypt's pebble (Debian's pebble package, installed here
# when missing), with pebble-challtestsrv as its DNS server (every name is 127.0.0.1, no AAAA records).
# Usage: scripts/test-pebble.sh start|stop|env
#   start  starts both (idempotent: a running pair is kept) and prints what the tests need, as shell assignments:
#          PEBBLE_DIRECTORY_URL, PEBBLE_CA_FILE (the CA that signs pebble's own HTTPS listeners, made here with the
#          openssl CLI), PEBBLE_MANAGEMENT_URL (`/roots/0` there is the root that issues certificates; pebble makes a
#          new one at every start), PEBBLE_HTTP_PORT (where pebble connects to validate HTTP-01 challenges)
#   stop   stops both
#   env    prints the assignments without starting anything (eval "$(scripts/test-pebble.sh env)")
# Ports: ACME 127.0.0.1:14000, management 127.0.0.1:15000, HTTP-01 validation to port LINKD_PEBBLE_HTTP_PORT (5002),
# TLS-ALPN-01 to 5001, the DNS server on 127.0.0.1:LINKD_PEBBLE_DNS_PORT (8053) and its management interface on
# 127.0.0.1:LINKD_PEBBLE_DNS_MANAGEMENT_PORT (8055). The state (certificates, config, logs, pids) lives in
# LINKD_TEST_PEBBLE_ROOT (/tmp)/linkd-test-pebble. For tests only: pebble's keys are thrown away at every start.
set -euo pipefail
# Close every inherited descriptor past stderr: the servers started below would keep them open for their lifetime,
# and a parent that waits for a pipe or socket to close (Foundation's Process does) would wait forever.
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
done
command=${1:-start}
http_port=${LINKD_PEBBLE_HTTP_PORT:-5002}
dns_port=${LINKD_PEBBLE_DNS_PORT:-8053}
dns_management_port=${LINKD_PEBBLE_DNS_MANAGEMENT_PORT:-8055}
dir=${LINKD_TEST_PEBBLE_ROOT:-/tmp}/linkd-test-pebble
directory_url=https://127.0.0.1:14000/dir

print_env() {
  echo "PEBBLE_DIRECTORY_URL=$directory_url"
  echo "PEBBLE_CA_FILE=$dir/ca.pem"
  echo "PEBBLE_MANAGEMENT_URL=https://127.0.0.1:15000"
  echo "PEBBLE_HTTP_PORT=$http_port"
  echo "PEBBLE_DNS_MANAGEMENT_URL=http://127.0.0.1:$dns_management_port"
}
# The pid in FILE, if that process is alive.
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
answers() { curl -sf -o /dev/null --max-time 2 --noproxy '*' --cacert "$dir/ca.pem" "$directory_url"; }
stop_one() {
  if alive "$1"; then
    local pid
    pid=$(cat "$1")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
}

# A CA, and a certificate for localhost and 127.0.0.1 that it signs, for pebble's HTTPS listeners (made once).
make_certificates() {
  [ -f "$dir/cert.pem" ] && [ -f "$dir/key.pem" ] && [ -f "$dir/ca.pem" ] && return 0
  local curve=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
  openssl req -x509 "${curve[@]}" -keyout "$dir/ca.key" -out "$dir/ca.pem" -days 3650 -subj "/CN=linkd test pebble CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  openssl req "${curve[@]}" -keyout "$dir/key.pem" -out "$dir/server.csr" -subj "/CN=localhost" 2>/dev/null
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' \
    >"$dir/server.ext"
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 825 \
    -extfile "$dir/server.ext" -out "$dir/cert.pem" 2>/dev/null
  rm -f "$dir/server.csr" "$dir/server.ext"
}

write_config() {
  cat >"$dir/pebble-config.json" <<EOF
{
  "pebble": {
    "listenAddress": "127.0.0.1:14000",
    "managementListenAddress": "127.0.0.1:15000",
    "certificate": "$dir/cert.pem",
    "privateKey": "$dir/key.pem",
    "httpPort": $http_port,
    "tlsPort": 5001,
    "ocspResponderURL": "",
    "externalAccountBindingRequired": false
  }
}
EOF
}

case "$command" in
  start)
    if ! command -v pebble >/dev/null || ! command -v pebble-challtestsrv >/dev/null; then
      echo "test-pebble: installing pebble" >&2
      sudo=""
      if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "test-pebble: need root (or sudo) to install pebble" >&2; exit 1; }
        sudo=sudo
      fi
      export DEBIAN_FRONTEND=noninteractive
      $sudo apt-get install -y -qq --no-install-recommends pebble >/dev/null \
        || { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends pebble >/dev/null; }
    fi
    for tool in openssl curl; do
      command -v "$tool" >/dev/null || { echo "test-pebble: $tool is not installed; run scripts/ensure-deps.sh test" >&2; exit 1; }
    done
    mkdir -p "$dir"
    chmod 700 "$dir"
    exec 9>"$dir.lock"
    flock 9
    if alive "$dir/pebble.pid" && alive "$dir/challtestsrv.pid" && answers; then
      print_env
      exit 0
    fi
    stop_one "$dir/pebble.pid"
    stop_one "$dir/challtestsrv.pid"
    make_certificates
    write_config
    # Only the DNS server: pebble connects to the tests' own HTTP-01 responder, not to challtestsrv's.
    # The servers must not inherit the lock (fd 9) or the caller's pipes.
    setsid pebble-challtestsrv -defaultIPv4 127.0.0.1 -defaultIPv6 "" -dns01 "127.0.0.1:$dns_port" \
      -http01 "" -https01 "" -tlsalpn01 "" -management "127.0.0.1:$dns_management_port" \
      </dev/null >"$dir/challtestsrv.log" 2>&1 9>&- &
    echo $! >"$dir/challtestsrv.pid"
    PEBBLE_VA_NOSLEEP=1 PEBBLE_WFE_NONCEREJECT=0 setsid pebble -config "$dir/pebble-config.json" \
      -dnsserver "127.0.0.1:$dns_port" </dev/null >"$dir/pebble.log" 2>&1 9>&- &
    echo $! >"$dir/pebble.pid"
    for _ in $(seq 100); do
      answers && break
      if ! alive "$dir/pebble.pid" || ! alive "$dir/challtestsrv.pid"; then break; fi
      sleep 0.1
    done
    if ! answers; then
      echo "test-pebble: pebble did not answer at $directory_url" >&2
      tail -5 "$dir/challtestsrv.log" "$dir/pebble.log" >&2 || true
      stop_one "$dir/pebble.pid"
      stop_one "$dir/challtestsrv.pid"
      exit 1
    fi
    print_env
    ;;
  stop)
    stop_one "$dir/pebble.pid"
    stop_one "$dir/challtestsrv.pid"
    exit 0
    ;;
  env)
    print_env
    ;;
  *)
    echo "usage: $0 start|stop|env" >&2
    exit 2
    ;;
esac
