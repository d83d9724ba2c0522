#!/usr/bin/env bash
# Makes a release of linkd: the daemon, the Swift package (LinkdClient) and the TypeScript client share one version.
#   scripts/release.sh 0.2.0
# writes 0.2.0 to packaging/VERSION, clients/typescript/package.json and Sources/linkd/CLI/LinkdVersion.swift, commits
# that ("Release 0.2.0") and makes the annotated tag 0.2.0 — a plain X.Y.Z tag, the form SwiftPM's
# `.package(url:from:)` and npm's `git+…#semver:` both read. Pushing the commit and the tag is left to you:
#   git push origin main 0.2.0
# Refuses: a version that is not X.Y.Z, one not above packaging/VERSION, a tag that exists, uncommitted changes.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "release: $*" >&2; exit 1; }

next=${1:-}
[[ $next =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] || fail "usage: scripts/release.sh X.Y.Z (got '${next}')"
current=$(tr -d ' \n' < packaging/VERSION)
higher=$(printf '%s\n%s\n' "$current" "$next" | sort -V | tail -n1)
[ "$next" != "$current" ] && [ "$higher" = "$next" ] || fail "$next is not above the current version $current (packaging/VERSION)"
git rev-parse -q --verify "refs/tags/$next" >/dev/null && fail "the tag $next exists already"
git diff --quiet HEAD -- && git diff --cached --quiet HEAD -- || fail "commit or stash your changes first (git status)"

printf '%s\n' "$next" > packaging/VERSION
python3 - "$next" <<'PY'
import json, re, sys
version = sys.argv[1]
path = "clients/typescript/package.json"
text = open(path).read()
new, count = re.subn(r'("version"\s*:\s*")[^"]*(")', lambda m: m.group(1) + version + m.group(2), text, count=1)
if count != 1: sys.exit(f"release: no version in {path}")
json.loads(new)
open(path, "w").write(new)
path = "Sources/linkd/CLI/LinkdVersion.swift"
text = open(path).read()
new, count = re.subn(r'(static let release = ")[^"]*(")', lambda m: m.group(1) + version + m.group(2), text, count=1)
if count != 1: sys.exit(f"release: no release constant in {path}")
open(path, "w").write(new)
PY
git add packaging/VERSION clients/typescript/package.json Sources/linkd/CLI/LinkdVersion.swift
git commit -q -m "Release $next"
git tag -a "$next" -m "linkd $next"
echo "release: tagged $next ($(git rev-parse --short HEAD)); push with: git push origin HEAD $next"
