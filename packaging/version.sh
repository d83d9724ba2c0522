#!/usr/bin/env bash
# Prints linkd's version, the one place every package and image takes it from: packaging/VERSION (the release,
# changed by hand), followed in a git checkout by +git<commits>.<short id> so that each commit's package sorts after
# the one before it (dpkg --compare-versions) and names its source: 0.1.0+git517.689bed7. A checkout with changes
# not committed gets .dirty. Usage: packaging/version.sh [--tag]   (--tag: '+' as '-', for image tags)
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(tr -d ' \n' < packaging/VERSION)
if git rev-parse --git-dir >/dev/null 2>&1; then
  version+="+git$(git rev-list --count HEAD).$(git rev-parse --short=7 HEAD)"
  git diff --quiet HEAD -- 2>/dev/null || version+=".dirty"
fi
[ "${1:-}" = --tag ] && version=${version//+/-}
echo "$version"
