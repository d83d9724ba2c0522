#!/usr/bin/env bash
# Tests `make install`'s layout the way an operator meets it: scripts/install.sh into a temporary prefix, then the
# installed PREFIX/bin/linkd started from a directory that is not the checkout (so nothing of the checkout's
# templates/ or examples/ can be found by accident), with no templatesDir, manifests or LINKD_TEMPLATES_DIR, on a
# free port and a temporary data directory. It must find its templates and demo manifests beside itself
# (PREFIX/share/linkd), answer /healthz, write the first admin key, and serve a share link's page. Also checks the
# files and modes installed, and that a second install over the first works (an upgrade).
# Installs what it needs with apt-get (curl, jq, python3): CI starts from a fresh Debian 12 machine.
# Usage: scripts/test-install.sh   (LINKD_BIN: another binary; default .build/release/linkd from `make build`)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# shellcheck source=packaging/test-lib.sh
source packaging/test-lib.sh
binary=${LINKD_BIN:-.build/release/linkd}
[ -x "$binary" ] || fail "no release binary at $binary; run 'make build' first"

missing=()
for p in curl jq python3; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/linkd-test-install.XXXXXX)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
prefix=$work/prefix

# The Makefile's target, as an operator runs it (without its build step: the binary is there).
scripts/install.sh --prefix "$prefix" --binary "$binary" >/dev/null
scripts/install.sh --prefix "$prefix" --binary "$binary" >/dev/null     # again: an upgrade over an install
[ -x "$prefix/bin/linkd" ] || fail "no $prefix/bin/linkd"
[ "$(stat -c %a "$prefix/bin/linkd")" = 755 ] || fail "bin/linkd is not mode 755"
for f in landing.mustache unavailable.mustache claim.mustache claim.js linkd.css admin/head.mustache; do
  [ -f "$prefix/share/linkd/templates/$f" ] || fail "share/linkd/templates/$f is missing"
done
for f in examples/*.yaml; do
  cmp -s "$f" "$prefix/share/linkd/examples/${f#examples/}" || fail "share/linkd/$f differs from the checkout's"
done
[ -z "$(find "$prefix" -type f -perm /022)" ] || fail "files writable by group or others: $(find "$prefix" -type f -perm /022)"
[ -z "$(find "$prefix/share" -name '.*')" ] || fail "dot files installed: $(find "$prefix/share" -name '.*')"
say "layout: bin/linkd, share/linkd/templates ($(find "$prefix/share/linkd/templates" -type f | wc -l) files), share/linkd/examples ($(ls "$prefix/share/linkd/examples" | wc -l) manifests)"

# Run it from elsewhere, through a symbolic link on a PATH as a package manager would (the link is resolved).
mkdir -p "$work/run" "$work/path"
ln -s "$prefix/bin/linkd" "$work/path/linkd"
cd "$work/run"
case "$PWD" in "$repo"*) fail "the run directory is inside the checkout" ;; esac
port=$(free_port)
base=http://127.0.0.1:$port
env -u LINKD_TEMPLATES_DIR -u LINKD_MANIFESTS -u LINKD_CONFIG -u LINKD_DATA_DIR -u LINKD_DATABASE_URL \
  -u LINKD_MASTER_KEY -u LINKD_HOST -u LINKD_PORT \
  PATH="$work/path:/usr/bin:/bin" linkd serve --port "$port" --data-dir "$work/data" >"$work/linkd.log" 2>&1 &
pid=$!
wait_healthy "$base" 60 "$pid" || { tail -20 "$work/linkd.log" >&2; fail "the installed linkd did not start"; }
say "/healthz: 200 from the installed linkd in $PWD"
# The resident size at start, most of it the binary's own pages: 36 MB with scripts/build-release.sh's flags and a
# current scripts/linkd.order, 48–49 MB without the order (issue 32's target is 50 MB). The bar is 45 MB, so a build
# that loses the order, or a list that no longer matches the code (scripts/symbol-order.sh), fails here
# (docs/benchmarks.md, "The binary's own pages").
rss_kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
[ "$rss_kb" -lt $((45 * 1024)) ] || fail "resident $((rss_kb / 1024)) MB at start, over 45 MB (is scripts/linkd.order stale? run scripts/symbol-order.sh)"
say "resident at start: $((rss_kb / 1024)) MB (under 45 MB)"
wait_file "$work/data/initial-admin-key" 10 || fail "no initial-admin-key in the data directory"
[ "$(stat -c %a "$work/data")" = 700 ] || fail "the data directory is not mode 700"
path=$(make_share_link "$base" "$(cat "$work/data/initial-admin-key")") || { tail -20 "$work/linkd.log" >&2; fail "no share link"; }
check_share_page "$base" "$path" || { tail -20 "$work/linkd.log" >&2; fail "the share page did not open"; }
say "share link $path: its landing page opens (templates and demo manifests found beside the binary)"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
[ "$status" = 0 ] || { tail -20 "$work/linkd.log" >&2; fail "linkd exited $status on SIGTERM"; }
echo "test-install: 1 passed, 0 failed"
