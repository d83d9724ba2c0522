# Sourced by scripts/make-image.sh and scripts/test-image.sh (not run): picks the container engine, and how podman
# stores images on this machine, and makes the Debian base image when it is missing — from Debian's packages, since
# no image registry need be reachable.
# Sets ENGINE (an array: the engine's command with its options, "${ENGINE[@]}" run …) and ENGINE_NAME (podman|docker).
#   LINKD_CONTAINER_ENGINE=podman|docker   use that engine (default: podman when installed, else docker when a
#                                          Docker engine answers)
#   LINKD_PODMAN_STORAGE=overlay|fuse-overlayfs|vfs
#                                          podman's image store (default: the kernel's overlayfs when it mounts here,
#                                          else fuse-overlayfs when /dev/fuse exists, else vfs: slow and large, but it
#                                          works anywhere). fuse-overlayfs and vfs keep their images apart from the
#                                          machine's default store (/var/lib/containers/storage-fuse, …-vfs), so
#                                          they never meet a store made by another driver.
#   LINKD_BASE_IMAGE                       the base image (default localhost/debian:bookworm-slim)
# podman reads packaging/containers.conf (CONTAINERS_CONF; an explicit CONTAINERS_CONF of the caller wins).

LINKD_BASE_IMAGE=${LINKD_BASE_IMAGE:-localhost/debian:bookworm-slim}
_engine_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Can the kernel mount an overlayfs on the filesystem where podman keeps its images? (Not inside some containers,
# nor on some filesystems, where podman's overlay driver then fails at its first command.)
_kernel_overlay_mounts() {
  local base=/var/lib/containers d ok=1
  mkdir -p "$base" 2>/dev/null || return 1
  d=$(mktemp -d "$base/.overlay-probe.XXXXXX") || return 1
  mkdir -p "$d/lower" "$d/upper" "$d/work" "$d/merged"
  if mount -t overlay overlay -o "lowerdir=$d/lower,upperdir=$d/upper,workdir=$d/work" "$d/merged" 2>/dev/null; then
    umount "$d/merged" && ok=0
  fi
  rm -rf "$d"
  return $ok
}

# Fills ENGINE and ENGINE_NAME; returns 1 (with a message) when no engine can be used.
engine_setup() {
  local want=${LINKD_CONTAINER_ENGINE:-}
  if [ -z "$want" ]; then
    if command -v podman >/dev/null; then want=podman
    elif command -v docker >/dev/null && docker info >/dev/null 2>&1; then want=docker
    else
      echo "container-engine: neither podman nor a running Docker engine is here (apt-get install podman runc)" >&2
      return 1
    fi
  fi
  ENGINE_NAME=$want
  if [ "$want" = docker ]; then
    ENGINE=(docker)
    return 0
  fi
  command -v podman >/dev/null || { echo "container-engine: podman is not installed" >&2; return 1; }
  export CONTAINERS_CONF=${CONTAINERS_CONF:-$_engine_repo/packaging/containers.conf}
  local storage=${LINKD_PODMAN_STORAGE:-}
  if [ -z "$storage" ]; then
    if [ "$(id -u)" -ne 0 ]; then
      storage=default                      # rootless: podman's own choice (fuse-overlayfs or vfs) in ~/.local
    elif [ "$(podman info --format '{{.Store.GraphDriverName}}' 2>/dev/null)" != overlay ]; then
      # The machine's store is another driver (storage.conf says so) or overlay fails to start: keep a working
      # non-overlay default, else fall back below.
      if podman info >/dev/null 2>&1; then storage=default
      elif [ -e /dev/fuse ] && command -v fuse-overlayfs >/dev/null; then storage=fuse-overlayfs
      else storage=vfs
      fi
    elif _kernel_overlay_mounts; then
      storage=overlay
    elif [ -e /dev/fuse ] && command -v fuse-overlayfs >/dev/null; then
      storage=fuse-overlayfs
    else
      storage=vfs
    fi
  fi
  case "$storage" in
    default|overlay) ENGINE=(podman) ;;
    fuse-overlayfs)
      ENGINE=(podman --root /var/lib/containers/storage-fuse --storage-driver overlay
              --storage-opt "overlay.mount_program=$(command -v fuse-overlayfs)") ;;
    vfs) ENGINE=(podman --root /var/lib/containers/storage-vfs --storage-driver vfs) ;;
    *) echo "container-engine: LINKD_PODMAN_STORAGE must be overlay, fuse-overlayfs or vfs" >&2; return 1 ;;
  esac
  PODMAN_STORAGE=$storage
  return 0
}

engine_image_exists() { "${ENGINE[@]}" image inspect "$1" >/dev/null 2>&1; }

# Makes $LINKD_BASE_IMAGE when it is not there: Debian 12's minimal system (mmdebstrap --variant=minbase) from the
# same Debian mirrors as this machine's apt (security updates included), without manual pages, documentation and
# translations (as Debian's -slim images), imported as an image. About 1.5 minutes, most of it downloading.
engine_ensure_base() {
  engine_image_exists "$LINKD_BASE_IMAGE" && return 0
  case "$LINKD_BASE_IMAGE" in
    localhost/*) ;;
    *) "${ENGINE[@]}" pull "$LINKD_BASE_IMAGE"; return ;;
  esac
  command -v mmdebstrap >/dev/null || { echo "container-engine: mmdebstrap is needed to make $LINKD_BASE_IMAGE (apt-get install mmdebstrap)" >&2; return 1; }
  local mirrors=()
  if grep -qs 'bookworm' /etc/apt/sources.list.d/debian.sources; then
    mirrors=(/etc/apt/sources.list.d/debian.sources)
  elif grep -qs '^deb .* bookworm' /etc/apt/sources.list; then
    mirrors=(/etc/apt/sources.list)
  else
    mirrors=("deb http://deb.debian.org/debian bookworm main" "deb http://deb.debian.org/debian bookworm-updates main"
             "deb http://deb.debian.org/debian-security bookworm-security main")
  fi
  echo "container-engine: making $LINKD_BASE_IMAGE from Debian's packages (mmdebstrap, bookworm, minbase)" >&2
  local started=$SECONDS
  mmdebstrap --quiet --variant=minbase --format=tar \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    bookworm - "${mirrors[@]}" \
    | "${ENGINE[@]}" import --change 'CMD ["bash"]' - "$LINKD_BASE_IMAGE" >/dev/null
  echo "container-engine: $LINKD_BASE_IMAGE made in $((SECONDS - started)) s" >&2
}
