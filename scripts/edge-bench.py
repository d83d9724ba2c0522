#!/usr/bin/env python3
"""The HTTP edge's figures (docs/operating.md, "Limits"), against a running linkd (its pid and port given):

  1. slow head: the daemon's CPU time to take one 12 KiB request head sent a byte per TCP segment (a head re-scanned
     from its start on every read costs O(n²); searched once, O(n));
  2. non-reading pipeliner: the daemon's resident growth while CONNS connections pipeline `GET /healthz` and never
     read the answers, for SECONDS, and the bytes each got the daemon to take.

Usage: scripts/edge-bench.py PID PORT [CONNS] [SECONDS]
"""
import os, socket, sys, threading, time

pid, port = int(sys.argv[1]), int(sys.argv[2])
conns = int(sys.argv[3]) if len(sys.argv) > 3 else 16
seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 10
tick = os.sysconf("SC_CLK_TCK")


def cpu_seconds():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick


def rss_mb():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024


# 1. A 15 KiB head, one byte per segment.
head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * (12 * 1024) + b"\r\n\r\n"
s = socket.create_connection(("127.0.0.1", port))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
before = cpu_seconds()
started = time.time()
for i in range(len(head)):
    s.send(head[i:i + 1])
    time.sleep(0.0002)  # let the daemon read each byte on its own (well within the 10 s head timeout)
s.settimeout(10)
answer = s.recv(200).split(b"\r\n", 1)[0].decode()
print(f"slow head: {len(head)} bytes a byte at a time in {time.time() - started:.1f} s; daemon CPU {cpu_seconds() - before:.3f} s; answer {answer!r}")
s.close()

# 2. Pipeliners that never read.
batch = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 1000
rss_before = rss_mb()
taken = [0] * conns
stop = time.time() + seconds


def flood(n):
    c = socket.create_connection(("127.0.0.1", port))
    c.settimeout(1)
    try:
        while time.time() < stop:
            c.sendall(batch)
            taken[n] += len(batch)
    except OSError:
        pass
    time.sleep(max(0, stop - time.time()))
    c.close()


threads = [threading.Thread(target=flood, args=(n,)) for n in range(conns)]
for t in threads:
    t.start()
peak = rss_before
while any(t.is_alive() for t in threads):
    peak = max(peak, rss_mb())
    time.sleep(0.2)
print(f"pipeliners: {conns} connections for {seconds:.0f} s, {sum(taken) / 2**20:.1f} MB of requests taken; "
      f"RSS {rss_before:.1f} → peak {peak:.1f} MB (+{(peak - rss_before) / conns * 1024:.0f} KB per connection)")
