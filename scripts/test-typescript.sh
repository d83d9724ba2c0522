#!/usr/bin/env bash
# Builds and tests the TypeScript client, clients/typescript (docs/client-typescript.md).
#   1. installs what it needs when missing, with apt-get (Debian's packages; no npm registry): nodejs (Node ≥ 18, for
#      fetch and `node --test`), node-typescript (tsc), python3-yaml (the tests read the seed manifests and
#      docs/openapi.yaml with PyYAML);
#   2. compiles it with `tsc -p clients/typescript` (strict) into clients/typescript/dist and packs it as an app
#      installs it (scripts/pack-typescript.sh: clients/typescript/linkd-client-<version>.tgz);
#   3. runs its tests with Node's own test runner against real `linkd serve` processes started from $LINKD_BIN
#      (default .build/debug/linkd: this script does not build linkd).
# Usage: scripts/test-typescript.sh            LINKD_BIN=/path/to/linkd scripts/test-typescript.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

missing=()
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v tsc >/dev/null 2>&1 || missing+=(node-typescript)
python3 -c 'import yaml' >/dev/null 2>&1 || missing+=(python3-yaml)
if [ ${#missing[@]} -gt 0 ]; then
  echo "test-typescript: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "test-typescript: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
    sudo=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  # apt-get update only when the package lists are missing or an install fails for want of them.
  if ! $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 18 ]; then
  echo "test-typescript: Node $(node --version) is too old: the client needs fetch and the tests node --test (Node ≥ 18)" >&2
  exit 1
fi

export LINKD_BIN="${LINKD_BIN:-$root/.build/debug/linkd}"
case "$LINKD_BIN" in /*) ;; *) LINKD_BIN="$root/$LINKD_BIN" ;; esac
if [ ! -x "$LINKD_BIN" ]; then
  echo "test-typescript: no linkd binary at $LINKD_BIN — build it with swift build (or set LINKD_BIN)" >&2
  exit 1
fi

echo "test-typescript: node $(node --version), $(tsc --version), linkd $LINKD_BIN"
scripts/pack-typescript.sh >/dev/null

tap=$(mktemp)
trap 'rm -f "$tap"' EXIT
status=0
node --test --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$tap" \
  clients/typescript/test/*.test.mjs || status=$?
pass=$(sed -n 's/^# pass //p' "$tap" | tail -1)
fail=$(sed -n 's/^# fail //p' "$tap" | tail -1)
echo "test-typescript: ${pass:-0} passed, ${fail:-?} failed"
exit "$status"
