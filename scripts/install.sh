#!/usr/bin/env bash
# Installs linkd in the install layout the binary expects (`make install`, and the staging step of `make image` and
# `make deb`), so that an installed linkd finds its web templates and demo manifests with no configuration:
#   PREFIX/bin/linkd                      the release binary (Swift runtime linked in; scripts/build-release.sh)
#   PREFIX/share/linkd/templates/         a copy of templates/ (the web pages, linkd.css, the console's templates)
#   PREFIX/share/linkd/examples/*.yaml    the demo manifests of examples/ (served when `manifests` names none)
# linkd with no `templatesDir` reads <dir of its resolved executable>/../share/linkd/templates (LINKD_TEMPLATES_DIR
# overrides). Nothing else is written: no configuration file, no data directory, no service.
# Usage: scripts/install.sh [--prefix /usr/local] [--destdir DIR] [--binary .build/release/linkd] [--strip]
#   --strip: the installed binary without its debug information (strip --strip-debug: 191 MB → 117 MB; its symbols
#   stay, for backtraces); the package and the image use it.
#   PREFIX and DESTDIR in the environment work too (`make install PREFIX=/opt/linkd DESTDIR=/tmp/stage`); DESTDIR is
#   prepended to every path written, for staging a package.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${PREFIX:-/usr/local}
destdir=${DESTDIR:-}
binary=${LINKD_BIN:-.build/release/linkd}
strip=
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --destdir) destdir=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    --strip) strip=1; shift ;;
    *) echo "usage: $0 [--prefix DIR] [--destdir DIR] [--binary FILE] [--strip]" >&2; exit 2 ;;
  esac
done
case "$prefix" in
  /*) ;;
  *) echo "install: --prefix must be an absolute path (got '$prefix')" >&2; exit 2 ;;
esac
[ -x "$binary" ] || { echo "install: no release binary at $binary; run 'make build' first" >&2; exit 1; }

root=$destdir$prefix
install -d -m 0755 "$root/bin" "$root/share/linkd/templates" "$root/share/linkd/examples"
install -m 0755 "$binary" "$root/bin/linkd"
[ -z "$strip" ] || strip --strip-debug "$root/bin/linkd"
# The templates tree as it is in the repository (admin/ included), without dot files (.gitkeep).
(cd templates && find . -type d ! -name '.' -print0) | while IFS= read -r -d '' d; do
  install -d -m 0755 "$root/share/linkd/templates/${d#./}"
done
(cd templates && find . -type f ! -name '.*' -print0) | while IFS= read -r -d '' f; do
  install -m 0644 "templates/${f#./}" "$root/share/linkd/templates/${f#./}"
done
install -m 0644 examples/*.yaml "$root/share/linkd/examples/"
echo "install: linkd in $root/bin, templates and demo manifests in $root/share/linkd"
