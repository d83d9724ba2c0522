#!/usr/bin/env bash
# Tests the Debian package (`make deb`) as an operator installs it:
#  1. builds it (scripts/make-deb.sh) and reads it back: control fields and version, the files and their modes and
#     owners (dpkg-deb -I/-c), the conffiles, and that every shared library the binary needs (readelf: NEEDED) comes
#     from a package in Depends;
#  2. on this machine, when systemd is not its init (a CI VM: installing would otherwise start the service here):
#     `apt-get install ./linkd_….deb`, the installed files, `systemd-analyze verify` and the offline exposure score of
#     the unit, then /usr/bin/linkd run from a directory outside the checkout with the packaged /etc/linkd/linkd.yaml
#     but a temporary data directory and port: /healthz and a share page (templates and demo manifests found in
#     /usr/share/linkd); then `apt-get purge` and nothing of it left;
#  3. in a container booted with systemd as init (podman --systemd=always, privileged: the unit's sandboxing needs
#     mount namespaces): the same install, the service enabled and started by the postinst under its real hardening
#     (dynamic user, system call filter, read-only system), /healthz and a share page, the data directory's owner and
#     mode, `systemctl reload` (SIGHUP) with the same process, a stop within its time-out with exit code 0, a start
#     that keeps the data, and a purge that disables the service and keeps /var/lib/private/linkd.
# Part 2 or 3 may be skipped with a message (systemd is the init here; containers cannot run here); not both.
# Installs what it needs with apt-get (binutils, curl, jq, python3, systemd for systemd-analyze; podman and its kin
# for part 3): CI starts from a fresh Debian 12 machine. Needs root and the release binary (`make build`).
# Usage: scripts/test-deb.sh   (LINKD_BIN: another binary; LINKD_DEB_COMPRESSION: default zstd here, to save a
#        minute of xz: the files are the same)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# shellcheck source=packaging/test-lib.sh
source packaging/test-lib.sh
binary=${LINKD_BIN:-.build/release/linkd}
[ -x "$binary" ] || fail "no release binary at $binary; run 'make build' first"
[ "$(id -u)" -eq 0 ] || fail "run as root: it installs the package"

want=(binutils curl jq python3 systemd podman runc netavark aardvark-dns iptables mmdebstrap uidmap fuse-overlayfs)
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
updated=
apt_update() { [ -n "$updated" ] || { apt-get update -qq; updated=1; }; }
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  apt_update
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/linkd-test-deb.XXXXXX)
pid=
container=
installed_here=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  [ -n "$container" ] && "${ENGINE[@]}" rm -f -t 0 "$container" >/dev/null 2>&1
  [ -n "$installed_here" ] && apt-get purge -y -qq linkd >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

# 1. The package itself.
started=$SECONDS
deb=$(LINKD_DEB_COMPRESSION=${LINKD_DEB_COMPRESSION:-zstd} scripts/make-deb.sh "$work/out" | tail -1)
version=$(packaging/version.sh)
arch=$(dpkg --print-architecture)
[ "$deb" = "$work/out/linkd_${version}_$arch.deb" ] || fail "unexpected package name $deb"
say "built $(basename "$deb") ($(du -h "$deb" | cut -f1)) in $((SECONDS - started)) s"

field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = linkd ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version), not $version"
[ "$(field Architecture)" = "$arch" ] || fail "Architecture: $(field Architecture)"
depends=$(field Depends)
in_depends() {     # in_depends PACKAGE: PACKAGE is one of Depends' names (alternatives and versions aside)
  local d ds
  IFS=',|' read -ra ds <<<"$depends"
  for d in "${ds[@]}"; do d=${d# }; [ "${d%% *}" = "$1" ] && return 0; done
  return 1
}
for p in libssl3 libcurl4 libsqlite3-0 libc6 procps; do
  in_depends "$p" || fail "Depends lacks $p: $depends"
done
dpkg-deb -c "$deb" > "$work/contents"
entry() { grep -E " \./${1#/}$" "$work/contents" || fail "the package has no $1"; }
for f in /usr/bin/linkd /lib/systemd/system/linkd.service /etc/linkd/linkd.yaml /etc/default/linkd \
         /usr/share/linkd/templates/landing.mustache /usr/share/linkd/templates/linkd.css \
         /usr/share/linkd/templates/admin/head.mustache /usr/share/linkd/examples/handz.yaml \
         /usr/share/doc/linkd/deploy.md; do
  entry "$f" >/dev/null
done
entry /usr/bin/linkd | grep '^-rwxr-xr-x root/root' >/dev/null || fail "/usr/bin/linkd: $(entry /usr/bin/linkd)"
entry /etc/default/linkd | grep '^-rw------- root/root' >/dev/null || fail "/etc/default/linkd is not 0600 root: $(entry /etc/default/linkd)"
entry /etc/linkd/linkd.yaml | grep '^-rw-r--r-- root/root' >/dev/null || fail "/etc/linkd/linkd.yaml: $(entry /etc/linkd/linkd.yaml)"
! awk '{print $2}' "$work/contents" | grep -v '^root/root$' >/dev/null || fail "files not owned by root/root in the package"
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles > "$work/conffiles"
[ "$(sort "$work/conffiles" | tr '\n' ' ')" = "/etc/default/linkd /etc/linkd/linkd.yaml " ] \
  || fail "conffiles: $(tr '\n' ' ' < "$work/conffiles")"
mkdir "$work/x"
dpkg-deb -x "$deb" "$work/x"
! readelf -S "$work/x/usr/bin/linkd" | grep '\.debug_info' >/dev/null || fail "the packaged binary still has debug info"
# Every library the binary needs, by the package that ships it on this machine, must be a dependency. (Debian 12
# has merged /usr: dpkg knows a library by the path its package ships it under, /lib/… or /usr/lib/….)
# (No reader in these pipelines stops early — `head`, `grep -q`, `awk … exit` —: under `pipefail` the writer's
# SIGPIPE would end the script with 141, or turn a negated check into a pass.)
owner_of() {
  local p
  for p in "$1" "$(readlink -f "$1")" "/usr$1" "${1#/usr}"; do
    dpkg -S "$p" 2>/dev/null | sed -n '1s/:.*//p' && return 0
  done
  return 1
}
for lib in $(readelf -d "$work/x/usr/bin/linkd" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p'); do
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l && !found { print $NF; found = 1 }')
  [ -n "$path" ] || fail "$lib (NEEDED) is not on this machine"
  owner=$(owner_of "$path") || fail "no package ships $path ($lib)"
  in_depends "$owner" || fail "$lib comes from $owner, which is not in Depends ($depends)"
done
say "package: fields, $(wc -l < "$work/contents") entries with their modes, 2 conffiles, every NEEDED library in Depends"

ran=0
# 2. On this machine, where systemd is not the init.
if [ -d /run/systemd/system ]; then
  say "part 2 skipped: systemd runs this machine, and installing the package would start linkd here (part 3 installs it in a container)"
elif dpkg-query -W -f='${Status}' linkd 2>/dev/null | grep -q "install ok installed"; then
  say "part 2 skipped: a linkd package is already installed here ($(dpkg-query -W -f='${Version}' linkd)); not touching it"
else
  started=$SECONDS
  apt_update
  installed_here=1
  apt-get install -y -qq "$deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "apt-get install of the package failed"; }
  say "installed on this machine with apt-get in $((SECONDS - started)) s"
  dpkg -V linkd || fail "dpkg -V: installed files differ from the package's"
  [ "$(stat -c '%a %U' /etc/default/linkd)" = "600 root" ] || fail "/etc/default/linkd is $(stat -c '%a %U' /etc/default/linkd)"
  systemd-analyze verify /lib/systemd/system/linkd.service || fail "systemd-analyze verify found problems in the unit"
  exposure=$(systemd-analyze security --offline=yes --no-pager /lib/systemd/system/linkd.service 2>/dev/null \
    | sed -n 's/.*Overall exposure level for linkd.service: \([0-9.]*\).*/\1/p')
  say "systemd-analyze verify: clean; offline exposure level ${exposure:-?} (0 is the most confined, 10 the least)"
  awk -v e="${exposure:-10}" 'BEGIN { exit !(e <= 2.0) }' || fail "the unit's exposure level is ${exposure:-unknown}, above 2.0"

  mkdir "$work/run"
  cd "$work/run"
  port=$(free_port)
  base=http://127.0.0.1:$port
  env -u LINKD_TEMPLATES_DIR -u LINKD_MANIFESTS -u LINKD_CONFIG -u LINKD_DATA_DIR -u LINKD_HOST -u LINKD_PORT \
    /usr/bin/linkd serve --config /etc/linkd/linkd.yaml --data-dir "$work/data" --port "$port" >"$work/linkd.log" 2>&1 &
  pid=$!
  wait_healthy "$base" 60 "$pid" || { tail -20 "$work/linkd.log" >&2; fail "/usr/bin/linkd did not start with the packaged configuration"; }
  wait_file "$work/data/initial-admin-key" 10 || fail "no initial-admin-key"
  path=$(make_share_link "$base" "$(cat "$work/data/initial-admin-key")") || { tail -20 "$work/linkd.log" >&2; fail "no share link"; }
  check_share_page "$base" "$path" || { tail -20 "$work/linkd.log" >&2; fail "the share page did not open"; }
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  pid=
  [ "$status" = 0 ] || fail "linkd exited $status on SIGTERM"
  cd "$repo"
  say "/usr/bin/linkd with /etc/linkd/linkd.yaml, run from $work/run: /healthz and a share page answer"

  apt-get purge -y -qq linkd >/dev/null
  installed_here=
  for f in /usr/bin/linkd /usr/share/linkd /etc/linkd /etc/default/linkd /lib/systemd/system/linkd.service; do
    [ ! -e "$f" ] || fail "$f is left after the purge"
  done
  say "purged: nothing of the package left"
  ran=$((ran + 1))
fi

# 3. Under systemd, in a container.
# shellcheck source=packaging/container-engine.sh
source packaging/container-engine.sh
LINKD_CONTAINER_ENGINE=${LINKD_CONTAINER_ENGINE:-podman}
systemd_image=localhost/linkd-systemd-test:bookworm
part3() {
  engine_setup || { say "part 3 skipped: no container engine"; return 0; }
  engine_ensure_base
  if ! err=$("${ENGINE[@]}" run --rm --network none "$LINKD_BASE_IMAGE" true 2>&1); then
    say "part 3 skipped: containers cannot run on this machine: $err"
    return 0
  fi
  if ! engine_image_exists "$systemd_image"; then
    # Debian's systemd as init, and curl and jq for the checks (they bring libcurl4 and libssl3, nothing else of
    # linkd's Depends). Rebuilt when the base image is.
    printf '%s\n' "FROM $LINKD_BASE_IMAGE" \
      'RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends systemd systemd-sysv dbus curl jq && apt-get clean && rm -rf /var/lib/apt/lists/*' \
      'STOPSIGNAL SIGRTMIN+3' 'CMD ["/sbin/init"]' > "$work/Containerfile.systemd"
    local args=(build -q -f "$work/Containerfile.systemd" -t "$systemd_image")
    [ "$ENGINE_NAME" = podman ] && args+=(--format docker --pull=never)
    "${ENGINE[@]}" "${args[@]}" "$work" >"$work/systemd-image.log" 2>&1 \
      || { cat "$work/systemd-image.log" >&2; fail "could not build $systemd_image"; }
  fi
  container=linkd-test-deb-$$
  local run=(run -d --name "$container" --privileged)
  [ "$ENGINE_NAME" = podman ] && run+=(--systemd=always)
  "${ENGINE[@]}" "${run[@]}" "$systemd_image" >/dev/null
  ctr() { "${ENGINE[@]}" exec "$container" "$@"; }
  local state i
  for ((i = 0; i < 60; i++)); do
    state=$(ctr systemctl is-system-running 2>/dev/null || true)
    case "$state" in running|degraded) break ;; esac
    sleep 1
  done
  case "$state" in running|degraded) ;; *) fail "systemd did not come up in the container ($state)" ;; esac
  say "systemd is up in the container ($state)"

  "${ENGINE[@]}" cp "$deb" "$container:/tmp/$(basename "$deb")"
  local t0=$SECONDS
  ctr sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/$(basename "$deb")" \
    >"$work/apt-container.log" 2>&1 || { cat "$work/apt-container.log" >&2; fail "apt-get install in the container failed"; }
  say "installed with apt-get (Depends from Debian's mirror) in $((SECONDS - t0)) s"
  [ "$(ctr systemctl is-enabled linkd.service)" = enabled ] || fail "the postinst did not enable linkd.service"

  CURL=("${ENGINE[@]}" exec "$container" curl)
  local base=http://127.0.0.1:8080
  wait_healthy "$base" 60 || { ctr journalctl -u linkd --no-pager | tail -20 >&2; fail "linkd.service does not answer /healthz"; }
  [ "$(ctr systemctl is-active linkd.service)" = active ] || fail "linkd.service is not active"
  local owner mode
  owner=$(ctr stat -c '%u' /var/lib/private/linkd)
  mode=$(ctr stat -c '%a' /var/lib/private/linkd)
  [ "$mode" = 700 ] || fail "the state directory is mode $mode"
  [ "$owner" != 0 ] || fail "the state directory is owned by root"
  # shellcheck disable=SC2016  # expanded in the container
  [ "$(ctr sh -c 'ps -o uid= -p $(systemctl show -P MainPID linkd)' | tr -d ' ')" = "$owner" ] \
    || fail "linkd does not run as the owner of its data ($owner)"
  say "linkd.service: enabled and started by the postinst, active, /healthz 200, running as dynamic uid $owner, /var/lib/linkd mode $mode"

  local admin path pid1 pid2
  admin=$(ctr cat /var/lib/linkd/initial-admin-key) || fail "no /var/lib/linkd/initial-admin-key"
  path=$(make_share_link "$base" "$admin") || { ctr journalctl -u linkd --no-pager | tail -20 >&2; fail "no share link"; }
  check_share_page "$base" "$path" || fail "the share page did not open under the service"
  exposure=$(ctr systemd-analyze security --no-pager linkd.service | sed -n 's/.*Overall exposure level for linkd.service: \([0-9.]*\).*/\1/p')
  say "share link $path opens; systemd-analyze security: exposure ${exposure:-?}"

  pid1=$(ctr systemctl show -P MainPID linkd.service)
  ctr systemctl reload linkd.service || { ctr journalctl -u linkd --no-pager | tail -10 >&2; fail "systemctl reload failed"; }
  sleep 1
  pid2=$(ctr systemctl show -P MainPID linkd.service)
  if [ "$pid1" != "$pid2" ] || [ "$(ctr systemctl is-active linkd.service)" != active ]; then
    fail "reload did not keep the same process ($pid1 → $pid2)"
  fi
  say "systemctl reload: SIGHUP to $pid1, still active"

  local a b
  a=$(date +%s.%N); ctr systemctl stop linkd.service; b=$(date +%s.%N)
  [ "$(ctr systemctl show -P Result linkd.service)" = success ] || fail "stop: Result $(ctr systemctl show -P Result linkd.service)"
  [ "$(ctr systemctl show -P ExecMainStatus linkd.service)" = 0 ] || fail "stop: exit status $(ctr systemctl show -P ExecMainStatus linkd.service)"
  say "systemctl stop: $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b - a }') s, exit status 0 (TimeoutStopSec $(ctr systemctl show -P TimeoutStopUSec linkd.service))"
  ctr systemctl start linkd.service
  wait_healthy "$base" 60 || fail "no /healthz after a start"
  check_share_page "$base" "$path" || fail "the link did not open after a restart (data lost?)"
  say "started again: the same link opens (data kept)"

  ctr sh -c 'DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq linkd' >/dev/null 2>&1 || fail "apt-get purge failed"
  ctr systemctl is-enabled linkd.service >/dev/null 2>&1 && fail "linkd.service is still enabled after the purge"
  ctr test ! -e /etc/linkd || fail "/etc/linkd is left after the purge"
  ctr test -f /var/lib/private/linkd/master.key || fail "the purge deleted the data (master.key)"
  say "purged: service gone, configuration gone, data kept in /var/lib/private/linkd"
  ran=$((ran + 1))
  "${ENGINE[@]}" rm -f -t 0 "$container" >/dev/null 2>&1 || true
  container=
}
part3

[ "$ran" -gt 0 ] || fail "neither part 2 nor part 3 could run here"
echo "test-deb: $ran passed, 0 failed"
