#!/usr/bin/env bash
# Builds the Debian package linkd_<version>_<arch>.deb (`make deb`) with dpkg-deb alone (no debhelper, no fakeroot:
# --root-owner-group), from the release binary `make build` wrote:
#   /usr/bin/linkd                         the binary, debug info stripped (its symbols kept, for backtraces)
#   /usr/share/linkd/{templates,examples}  the install layout the binary finds its templates and demo manifests in
#   /lib/systemd/system/linkd.service      the hardened unit (packaging/linkd.service)
#   /etc/linkd/linkd.yaml                  its configuration (conffile, packaging/linkd.yaml)
#   /etc/default/linkd                     its environment, for secrets (conffile, mode 0600, packaging/default)
#   /usr/share/doc/linkd/                  docs/deploy.md, configuration.md, operating.md
# The maintainer scripts (packaging/deb/) touch systemd only where it runs. The version is packaging/version.sh's.
# Usage: scripts/make-deb.sh [OUTDIR]   (default .build/packages; LINKD_BIN: another binary;
#   LINKD_DEB_COMPRESSION=xz|zstd|gzip|none: xz by default, Debian's own, 25 MB in about a minute on 2 idle cores;
#   zstd at its default level takes a second for 37 MB, and Debian 12's dpkg reads it)
# Prints the package's path on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
outdir=${1:-.build/packages}
binary=${LINKD_BIN:-.build/release/linkd}
[ -x "$binary" ] || { echo "make-deb: no release binary at $binary; run 'make build' first" >&2; exit 1; }
for tool in dpkg-deb strip; do
  command -v $tool >/dev/null || { echo "make-deb: $tool is missing (apt-get install dpkg binutils)" >&2; exit 1; }
done

version=$(packaging/version.sh)
arch=$(dpkg --print-architecture)
work=$(mktemp -d /tmp/linkd-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/linkd_${version}_$arch

scripts/install.sh --prefix /usr --destdir "$root" --binary "$binary" --strip >/dev/null
install -D -m 0644 packaging/linkd.service "$root/lib/systemd/system/linkd.service"
install -D -m 0644 packaging/linkd.yaml "$root/etc/linkd/linkd.yaml"
install -D -m 0600 packaging/default "$root/etc/default/linkd"
install -d -m 0755 "$root/usr/share/doc/linkd"
install -m 0644 docs/deploy.md docs/configuration.md docs/operating.md "$root/usr/share/doc/linkd/"

install -d -m 0755 "$root/DEBIAN"
install -m 0755 packaging/deb/postinst packaging/deb/prerm packaging/deb/postrm "$root/DEBIAN/"
printf '%s\n' /etc/linkd/linkd.yaml /etc/default/linkd > "$root/DEBIAN/conffiles"
# What the binary links (readelf -d: NEEDED), by package: glibc ≥ 2.36 for its packed relocations (DT_RELR),
# the C++ runtime of the static Swift runtime, OpenSSL's libcrypto, libcurl, SQLite; and procps for the unit's
# ExecReload (/bin/kill: not in a minimal Debian). scripts/test-deb.sh checks that every library the binary needs
# is in one of these.
cat > "$root/DEBIAN/control" <<EOF
Package: linkd
Version: $version
Architecture: $arch
Maintainer: ${DEBFULLNAME:-linkd maintainers} <${DEBEMAIL:-linkd@localhost}>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: libc6 (>= 2.36), libgcc-s1, libstdc++6, libssl3, libcurl4, libsqlite3-0, procps
Recommends: ca-certificates
Suggests: postgresql
Section: net
Priority: optional
Description: deep-link and share-URL routing daemon
 linkd signs and verifies share tokens, resolves deep links, share URLs and .ics
 attachments to the screens of an app's navigation map (one YAML manifest per
 app), and serves the web fallback pages and /.well-known/ files for people
 without the app. Plain HTTP behind a TLS-terminating proxy; SQLite on one
 machine, PostgreSQL for several instances.
 .
 This package runs it as a hardened systemd service (linkd.service) configured
 in /etc/linkd/linkd.yaml, with its data in /var/lib/linkd.
EOF
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) \
  > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums" "$root/DEBIAN/control" "$root/DEBIAN/conffiles"

mkdir -p "$outdir"
deb=$outdir/linkd_${version}_$arch.deb
started=$SECONDS
dpkg-deb --root-owner-group "-Z${LINKD_DEB_COMPRESSION:-xz}" --build "$root" "$deb" >/dev/null
echo "make-deb: $(du -h "$deb" | cut -f1) in $((SECONDS - started)) s" >&2
echo "$deb"
