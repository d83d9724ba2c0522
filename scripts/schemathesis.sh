#!/usr/bin/env bash
# Property-based conformance of the daemon to docs/openapi.yaml with Schemathesis (PyPI): a fresh `linkd serve` (debug
# build, rate limits off, a throwaway data directory) and two passes — an admin key on every operation but link
# creation, a client key on the links operations — each with every check (status codes, schemas, headers, 405 and
# Allow, negative data refused, valid data taken, auth). Settings: scripts/schemathesis.toml.
# Usage: scripts/schemathesis.sh [SECONDS per pass, default 120]
#        scripts/schemathesis.sh BASE_URL [SECONDS]    against a linkd already running at BASE_URL (such as
#            http://127.0.0.1:8080), its admin key in $LINKD_ADMIN_KEY; the app `handz` (examples/handz.yaml) must be
#            loaded, and rate limits off (`rateLimitPerSecond: 0`, `authFailuresPerMinute`, `claimAttemptsPerMinute` and
#            `claimCodesPerMinute` 1000000) or the passes see 429s. Nothing is built or started then.
# Bounds: SECONDS per pass (--max-time) and $SCHEMATHESIS_MAX_EXAMPLES examples per operation and phase (default 100).
# Exit status: 0 when both passes find nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
target=""
if [[ "${1:-}" =~ ^https?:// ]]; then target=${1%/}; shift; fi
secs=${1:-120}
examples=${SCHEMATHESIS_MAX_EXAMPLES:-100}
export PATH="$PATH:/opt/swift/usr/bin"

# Schemathesis in a virtual environment of its own, on Python 3.12+ where there is one (`PYTHON` to choose): with 3.11,
# Hypothesis's lambda-source reading fails inside Schemathesis's coverage phase ("AST constructor recursion depth
# mismatch").
venv=.build/schemathesis-venv
if [ ! -x "$venv/bin/st" ]; then
    python=${PYTHON:-}
    if [ -z "$python" ]; then
        for candidate in python3.13 python3.12 "$HOME"/.pyenv/versions/3.1[23]*/bin/python3 python3; do
            if "$candidate" -c 'import sys, venv; assert sys.version_info >= (3, 12)' 2>/dev/null; then python=$candidate; break; fi
        done
        python=${python:-python3}
    fi
    "$python" -m venv "$venv"
    "$venv/bin/pip" install --quiet schemathesis
fi

work=""
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$work" ] && rm -rf "$work"' EXIT
if [ -n "$target" ]; then
    base=$target
    admin=${LINKD_ADMIN_KEY:-}
    [ -n "$admin" ] || { echo "schemathesis.sh: set LINKD_ADMIN_KEY to an admin key of the linkd at $base" >&2; exit 2; }
    curl -fsS -o /dev/null "$base/healthz" || { echo "schemathesis.sh: no linkd answers $base/healthz" >&2; exit 1; }
else
    swift build --product linkd 2>&1 | grep -E "error:|complete!" || true
    work=$(mktemp -d)
    printf 'rateLimitPerSecond: 0\nauthFailuresPerMinute: 1000000\nclaimAttemptsPerMinute: 1000000\nclaimCodesPerMinute: 1000000\nlogLevel: error\n' \
        > "$work/linkd.yaml"
    .build/debug/linkd serve --port 0 --data-dir "$work/data" --config "$work/linkd.yaml" > "$work/out.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do grep -q "listening on" "$work/out.log" && break; sleep 0.1; done
    base=$(sed -n 's/^linkd: listening on //p' "$work/out.log")
    # The admin key of a first start is written to the data directory (older builds printed it).
    admin=$(grep -o 'lkd_[A-Za-z0-9_-]*' "$work/data/initial-admin-key" "$work/out.log" 2>/dev/null | head -1 | sed 's/^.*://')
    [ -n "$base" ] && [ -n "$admin" ] || { echo "linkd did not start:"; cat "$work/out.log"; exit 1; }
fi
client=$(curl -s -XPOST "$base/v1/admin/api-keys" -H "Authorization: Bearer $admin" -H 'Content-Type: application/json' \
    -d '{"kind":"client","app":"handz","label":"schemathesis"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')

status=0
st() { "$venv/bin/st" --config-file scripts/schemathesis.toml run docs/openapi.yaml --url "$base" \
    --max-time "$secs" --max-examples "$examples" --workers 2 "$@" || status=1; }
echo "== admin key: every operation but link creation"
st -H "Authorization: Bearer $admin" --exclude-operation-id createLink
echo "== client key: the links operations"
st -H "Authorization: Bearer $client" --include-tag links
exit $status
