#!/usr/bin/env bash
# Installs the Debian packages linkd needs when they are missing. Idempotent; runs apt-get only when needed.
# Usage: scripts/ensure-deps.sh [build|test|bench]   (test adds what the test suite needs: a browser, a database…;
#   bench what the benchmark scripts drive and compare with: wrk, nginx, the database, valgrind and perf)
set -euo pipefail
want=(pkg-config libssl-dev libcurl4-openssl-dev libsqlite3-dev)
if [ "${1:-build}" = test ]; then
  want+=(openssl curl chromium zbar-tools postgresql pebble)
  # The TypeScript client (scripts/test-typescript.sh, with python3-yaml) and RouteCodegenTests compile the generated
  # code: TypeScript with tsc and node, Kotlin with kotlinc (1.3, on the JDK).
  want+=(nodejs node-typescript python3-yaml kotlin)
fi
if [ "${1:-build}" = bench ]; then
  want+=(curl wrk nginx-light sqlite3 postgresql python3 valgrind linux-perf)
fi
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ensure-deps: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "ensure-deps: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
    sudo=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The QR tests compare our encoder with python-qrcode (PyPI), module for module.
if [ "${1:-build}" = test ] && ! python3 -c "import qrcode" 2>/dev/null; then
  echo "ensure-deps: installing python-qrcode (PyPI) for the QR tests" >&2
  python3 -m pip install -q "qrcode==8.2"
fi
# OpenAPIValidityTests runs openapi-spec-validator (PyPI) on docs/openapi.yaml.
if [ "${1:-build}" = test ] && ! python3 -c "import openapi_spec_validator" 2>/dev/null; then
  echo "ensure-deps: installing openapi-spec-validator (PyPI) for the OpenAPI document test" >&2
  python3 -m pip install -q "openapi-spec-validator==0.9.0"
fi
command -v swift >/dev/null || { echo "ensure-deps: swift is not on PATH (expected /opt/swift/usr/bin)" >&2; exit 1; }
