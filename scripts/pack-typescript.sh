#!/usr/bin/env bash
# Builds the TypeScript client and packs it as npm does, without npm or a registry:
#   scripts/pack-typescript.sh        → clients/typescript/linkd-client-<version>.tgz
# The tarball holds package/package.json, package/dist (compiled with tsc --strict) and package/src, the layout
# `npm pack` makes, so an app installs it with `npm install ./linkd-client-0.1.0.tgz` (or yarn, pnpm, bun) and its
# package.json records it. Attach it to the release whose tag it carries (scripts/release.sh). Needs tsc and node
# (scripts/test-typescript.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/../clients/typescript"
version=$(node -p 'require("./package.json").version')
rm -rf dist
tsc -p . --strict
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/package"
cp -R package.json dist src "$stage/package/"
out="linkd-client-$version.tgz"
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime='1985-10-26 08:15:00Z' -czf "$out" package
echo "clients/typescript/$out"
