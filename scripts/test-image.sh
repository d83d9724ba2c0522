#!/usr/bin/env bash
# Tests the linkd container image as an operator would use it: builds it (scripts/make-image.sh, podman; the Debian
# base image made with mmdebstrap when missing), runs it with a named volume and a published port, checks /healthz,
# the health check and the image's settings, creates a share link with the admin key the first start wrote to the
# volume and opens its page; restarts the container and opens the link again (the data is kept); stops it with
# `podman stop -t 10` and checks it stopped well within the grace period, on SIGTERM, with exit code 0; checks it runs
# as a user other than root, with a 0700 data directory.
# Installs what it needs with apt-get (podman, runc, netavark, iptables, mmdebstrap, fuse-overlayfs, curl, jq): CI
# starts from a fresh Debian 12 machine. Needs root and the release binary (`make build`).
# Where containers cannot run at all (no kernel support, no permission), it prints "SKIP: …" and exits 77; with
# LINKD_REQUIRE_CONTAINERS=1 that is a failure (exit 1) instead.
# Usage: scripts/test-image.sh   (LINKD_BIN: another binary; LINKD_TEST_IMAGE: the tag to build, default
#        localhost/linkd:latest)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=packaging/test-lib.sh
source packaging/test-lib.sh
image=${LINKD_TEST_IMAGE:-localhost/linkd:latest}
binary=${LINKD_BIN:-.build/release/linkd}
[ -x "$binary" ] || fail "no release binary at $binary; run 'make build' first"
[ "$(id -u)" -eq 0 ] || fail "run as root: it installs packages and runs a root podman"

skip() {
  if [ "${LINKD_REQUIRE_CONTAINERS:-0}" = 1 ]; then fail "containers cannot run here: $*"; fi
  echo "$(basename "$0"): SKIP: containers cannot run on this machine: $*" >&2
  exit 77
}

want=(podman runc netavark aardvark-dns iptables mmdebstrap uidmap fuse-overlayfs slirp4netns curl jq python3 python3-yaml)
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# compose.yaml cannot be run here (no registry for the postgres image): check what it must say. Both instances run this
# image with the same env file, whose example names the two values they must share; PostgreSQL is there and healthy
# before they start.
/usr/bin/python3 - <<'EOF' || fail "compose.yaml"
import re, sys, yaml
c = yaml.safe_load(open("compose.yaml"))
s = c["services"]
for n in ("linkd-1", "linkd-2"):
    assert s[n]["image"] == "localhost/linkd:latest", n + ": image"
    assert s[n]["env_file"] == "linkd.env", n + ": env_file"
    assert s[n]["depends_on"]["postgres"]["condition"] == "service_healthy", n + ": depends_on"
    assert s[n]["volumes"] == [n + "-data:/var/lib/linkd"], n + ": its own data volume"
assert s["linkd-1"]["ports"] != s["linkd-2"]["ports"]
assert "healthcheck" in s["postgres"]
env = open("packaging/linkd.env.example").read()
for k in ("LINKD_DATABASE_URL=postgres://", "LINKD_MASTER_KEY="):
    assert re.search("^" + k, env, re.M), "linkd.env.example lacks " + k
print("test-image.sh: compose.yaml: linkd-1 and linkd-2 share the image and linkd.env (database URL, master key)", file=sys.stderr)
EOF

# shellcheck source=packaging/container-engine.sh
source packaging/container-engine.sh
LINKD_CONTAINER_ENGINE=${LINKD_CONTAINER_ENGINE:-podman}
engine_setup || skip "no usable container engine"
say "engine: ${ENGINE[*]} (storage: ${PODMAN_STORAGE:-docker}; $(podman --version 2>/dev/null || true); runc $(runc --version 2>/dev/null | awk 'NR == 1 { print $3 }'))"
engine_ensure_base
if ! err=$("${ENGINE[@]}" run --rm --network none "$LINKD_BASE_IMAGE" true 2>&1); then
  skip "$err"
fi

started=$SECONDS
scripts/make-image.sh "$image" >/tmp/linkd-test-image-build.log 2>&1 \
  || { tail -30 /tmp/linkd-test-image-build.log >&2; fail "the image did not build (log: /tmp/linkd-test-image-build.log)"; }
say "image $image built in $((SECONDS - started)) s ($("${ENGINE[@]}" image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}'))"

# What the image says of itself.
[ "$("${ENGINE[@]}" image inspect --format '{{.Config.User}}' "$image")" = linkd ] || fail "the image's user is not linkd"
[ "$("${ENGINE[@]}" image inspect --format '{{.Config.StopSignal}}' "$image")" = SIGTERM ] || fail "no STOPSIGNAL SIGTERM"
"${ENGINE[@]}" image inspect --format '{{json .Config.Healthcheck}}' "$image" | grep -q healthz \
  || fail "the image has no HEALTHCHECK of /healthz (built without --format docker?)"
"${ENGINE[@]}" image inspect --format '{{json .Config.ExposedPorts}}' "$image" | grep -q 8080 || fail "8080 not exposed"
"${ENGINE[@]}" image inspect --format '{{json .Config.Volumes}}' "$image" | grep -q /var/lib/linkd \
  || fail "/var/lib/linkd is not a volume"

name=linkd-test-$$
volume=linkd-test-$$-data
cleanup() {
  "${ENGINE[@]}" rm -f -t 0 "$name" >/dev/null 2>&1 || true
  "${ENGINE[@]}" volume rm -f "$volume" >/dev/null 2>&1 || true
}
trap cleanup EXIT
logs() { "${ENGINE[@]}" logs "$name" 2>&1 | tail -20 >&2 || true; }

port=$(free_port)
base=http://127.0.0.1:$port
"${ENGINE[@]}" volume create "$volume" >/dev/null
# podman runs a container's health check from systemd timers; without systemd it logs an error for each timer it
# cannot make or remove (harmless: the check is run by hand below). Those lines are left out.
quiet() { "${ENGINE[@]}" "$@" 2> >(grep -v 'unable to get systemd connection' >&2); }
# As compose.yaml and docs/deploy.md run it: a read-only root, no capabilities, no new privileges.
quiet run -d --name "$name" -v "$volume:/var/lib/linkd" -p "127.0.0.1:$port:8080" \
  --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges "$image" >/dev/null
wait_healthy "$base" 60 || { logs; fail "the container did not answer /healthz on $base"; }
say "/healthz: 200 on the published port $port"

uid=$("${ENGINE[@]}" exec "$name" id -u)
[ "$uid" != 0 ] || fail "the container runs as root"
perm=$("${ENGINE[@]}" exec "$name" stat -c '%a %U' /var/lib/linkd)
[ "$perm" = "700 linkd" ] || fail "/var/lib/linkd in the container is '$perm', not '700 linkd'"
say "runs as uid $uid (linkd); data directory $perm"

if [ "$ENGINE_NAME" = podman ]; then
  "${ENGINE[@]}" healthcheck run "$name" >/dev/null || { logs; fail "podman healthcheck run failed"; }
  say "health check: healthy"
fi

admin=$("${ENGINE[@]}" exec "$name" cat /var/lib/linkd/initial-admin-key) || fail "no initial-admin-key in the volume"
path=$(make_share_link "$base" "$admin") || { logs; fail "could not create a share link"; }
check_share_page "$base" "$path" || { logs; fail "the share page did not open"; }
say "share link $path: its landing page opens (200, text/html)"

quiet restart -t 10 "$name" >/dev/null
wait_healthy "$base" 60 || { logs; fail "no /healthz after the restart"; }
check_share_page "$base" "$path" || { logs; fail "the share link did not open after a restart"; }
[ "$("${ENGINE[@]}" exec "$name" cat /var/lib/linkd/initial-admin-key)" = "$admin" ] || fail "the admin key changed"
say "after a restart: the same link opens, the same admin key (data kept in the volume)"

t0=$(date +%s.%N)
quiet stop -t 10 "$name" >/dev/null
t1=$(date +%s.%N)
seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
code=$("${ENGINE[@]}" inspect --format '{{.State.ExitCode}}' "$name")
say "stop -t 10: stopped in $seconds s, exit code $code"
awk -v s="$seconds" 'BEGIN { exit !(s < 5) }' || { logs; fail "stopping took $seconds s (SIGTERM not handled? the grace period is 10 s)"; }
[ "$code" = 0 ] || { logs; fail "exit code $code after SIGTERM (expected 0: a graceful stop)"; }

echo "test-image: 1 passed, 0 failed"
