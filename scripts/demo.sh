#!/usr/bin/env bash
# Starts `linkd serve` on its embedded default: 127.0.0.1:8080, data in the given directory (default ./data).
# Usage: scripts/demo.sh [path/to/linkd] [data-dir]
set -euo pipefail
BIN="${1:-.build/release/linkd}"
DATA="${2:-./data}"
echo "linkd: serving on http://${LINKD_HOST:-127.0.0.1}:${LINKD_PORT:-8080} (data in $DATA); Ctrl-C to stop"
exec "$BIN" serve --data-dir "$DATA"
