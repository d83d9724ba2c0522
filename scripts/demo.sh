#!/usr/bin/env bash
# `make demo`: runs the CLI's main verbs on the demo manifests and a CLI keyring in DATA_DIR (not the daemon's).
# Usage: scripts/demo.sh LINKD_BINARY DATA_DIR
set -euo pipefail
bin=${1:?usage: demo.sh LINKD_BINARY DATA_DIR}; data=${2:-./data}
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

step "$bin" manifest check examples/*.yaml
if ! "$bin" token keyring list --app handz --data-dir "$data" | grep -q '"active"'; then
  step "$bin" token keyring generate --app handz --data-dir "$data"
fi
step "$bin" token keyring list --app handz --data-dir "$data"
printf '\n\033[1m$ %s\033[0m\n' "$bin token issue --app handz --ttl 7d --data-dir $data"
token=$("$bin" token issue --app handz --ttl 7d --data-dir "$data")
echo "$token"
step "$bin" token verify "$token" --app handz --data-dir "$data"
step "$bin" resolve "https://links.handz.example/flows/6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b" --state free
step "$bin" resolve "https://links.handz.example/flows/6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b" --state signedOut
step "$bin" resolve "coinapp://coin/123" --state signedIn
printf '\nThis demo ran the CLI on the demo manifests (examples/) and the keyring in %s; `make run` starts the daemon.\n' "$data"
