# Sourced by the benchmark scripts: `start_preview_origin DIR` starts a preview origin on loopback (one JSON answer
# for every item) and writes DIR/handz.yaml, the Handz example pointed at it, so that the share page is measured
# with a cached preview; sets origin_pid (the caller's EXIT trap kills it) and preview_manifests (the four example
# manifests, Handz's the one in DIR, for LINKD_MANIFESTS).
start_preview_origin() {
  python3 -c '
import http.server
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        body = b"{\"title\": \"Morning flow\", \"creatorName\": \"Ana\", \"allowCreatorName\": true}"
        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
s = http.server.HTTPServer(("127.0.0.1", 0), H); print(s.server_address[1], flush=True); s.serve_forever()
' >"$1/origin.port" &
  origin_pid=$!
  for _ in $(seq 1 50); do [ -s "$1/origin.port" ] && break; sleep 0.1; done
  sed "s|^  baseURL: .*|  baseURL: http://127.0.0.1:$(cat "$1/origin.port")|" examples/handz.yaml >"$1/handz.yaml"
  preview_manifests="$1/handz.yaml,$PWD/examples/coin.yaml,$PWD/examples/ordentus.yaml,$PWD/examples/story.yaml"
}
