# Sourced by scripts/test-install.sh, test-deb.sh and test-image.sh (not run): what they check the same way on an
# installed linkd — a free port, waiting for /healthz, the first admin key, and a share link whose page opens.
# The share link is the demo Handz app's (examples/handz.yaml): its share route ShareLink/FlowView takes a flowId,
# its share host is links.handz.example, and a browser there gets the landing page.

DEMO_HOST=links.handz.example
DEMO_FLOW=6f1c2a8e-1d2b-4c55-9a7e-1c2d3e4f5a6b
# How the checks call curl: this machine's, or a container's (CURL=(podman exec NAME curl)) for a linkd listening on
# the container's loopback.
CURL=(curl)

say() { echo "$(basename "$0"): $*" >&2; }
fail() { say "FAIL: $*"; exit 1; }

# A TCP port nothing listens on now (the kernel's pick for a socket bound to port 0, then released).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_healthy BASE_URL SECONDS [PID]: /healthz answers 200 within SECONDS; with PID, fails at once when it exits.
wait_healthy() {
  local base=$1 limit=$2 pid=${3:-} i
  for ((i = 0; i < limit * 5; i++)); do
    [ "$("${CURL[@]}" -s -o /dev/null -w '%{http_code}' "$base/healthz" 2>/dev/null)" = 200 ] && return 0
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      say "linkd (pid $pid) exited before answering /healthz"
      return 1
    fi
    sleep 0.2
  done
  say "no 200 from $base/healthz within $limit s"
  return 1
}

# wait_file FILE SECONDS: FILE exists within SECONDS (the admin key is written before the listener opens, but
# check rather than assume).
wait_file() {
  local i
  for ((i = 0; i < $2 * 5; i++)); do [ -s "$1" ] && return 0; sleep 0.2; done
  return 1
}

# make_share_link BASE_URL ADMIN_KEY: creates a Handz share link through the API, prints its URL's path (/s/…).
make_share_link() {
  local answer url
  answer=$("${CURL[@]}" -sS -w '\n%{http_code}' -X POST "$1/v1/links" -H "Authorization: Bearer $2" \
    -H 'Content-Type: application/json' \
    -d "{\"app\":\"handz\",\"params\":{\"flowId\":\"$DEMO_FLOW\"},\"title\":\"Deploy check\"}")
  [ "${answer##*$'\n'}" = 201 ] || { say "POST /v1/links answered: $answer"; return 1; }
  url=$(jq -r .url <<<"${answer%$'\n'*}")
  case "$url" in
    "https://$DEMO_HOST/"*) echo "/${url#https://$DEMO_HOST/}" ;;
    *) say "POST /v1/links gave an unexpected url: $url"; return 1 ;;
  esac
}

# check_share_page BASE_URL PATH: the share page is the landing page, with the link's title (the templates were found
# and render), and the stylesheet it links is served from the templates directory.
check_share_page() {
  local answer status
  answer=$("${CURL[@]}" -sS -w '\n%{http_code} %{content_type}' -H "Host: $DEMO_HOST" "$1$2")
  status=${answer##*$'\n'}
  case "$status" in
    "200 text/html"*) ;;
    *) say "GET $2 (Host: $DEMO_HOST) answered $status: ${answer:0:300}"; return 1 ;;
  esac
  grep -q '<title>Deploy check · Handz</title>' <<<"$answer" \
    || { say "the share page has not the landing page's title: $(grep -o '<title>.*</title>' <<<"$answer")"; return 1; }
  status=$("${CURL[@]}" -sS -o /dev/null -w '%{http_code} %{content_type}' -H "Host: $DEMO_HOST" "$1/static/linkd.css")
  case "$status" in
    "200 text/css"*) ;;
    *) say "GET /static/linkd.css answered $status"; return 1 ;;
  esac
}
