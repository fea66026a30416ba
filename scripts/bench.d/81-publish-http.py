#!/usr/bin/python3
"""HTTP drain (issue 27): 10,000 positions queued in `locate publish`'s outbox while the server was
down, then sent by the next run to a local server (Tests/Tools/http-recorder.py, Python's
http.server with keep-alive, answering 200): the time from starting that run to its exit with
everything delivered, and positions per second. One POST at a time (the publisher waits for each
answer), over libcurl's kept-open connection. The issue sets a target for MQTT's drain (80-publish)
and asks for HTTP's figure beside it; the Python server's own cost per request is in the figure.
"""
import json
import os
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BENCH_DIR, BIN, row, tpv_log  # noqa: E402

QUEUED = 10_000
RECORDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Tools", "http-recorder.py")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def publish(log, port, outbox, *extra):
    command = [f"{BIN}/locate", "publish", "--simulate", log, "--to", f"http://127.0.0.1:{port}/pub",
               "--user", "bench", "--device", "van", "--outbox", outbox, "--json", *extra]
    started = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    return result, time.monotonic() - started


def main():
    log = tpv_log(QUEUED)
    later = os.path.join(BENCH_DIR, "publish-one-later.json")
    with open(later, "w") as out:
        out.write('{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2030-01-01T00:00:00.000Z","lat":51.48,"lon":-0.01}\n')
    outbox = os.path.join(BENCH_DIR, "publish-http-outbox.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(outbox + suffix):
            os.remove(outbox + suffix)
    port = free_port()
    # Nothing listens: every position is queued, and the run ends at once (75).
    filled, _ = publish(log, port, outbox, "--speed", "100000", "--drain-timeout", "0")
    if filled.returncode != 75 or json.loads(filled.stdout.splitlines()[-1])["pending"] != QUEUED:
        raise RuntimeError(f"filling the outbox: exit {filled.returncode}: {filled.stdout} {filled.stderr}")
    server = subprocess.Popen([sys.executable, RECORDER, "--port", str(port)], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        if not server.stdout.readline().startswith("listening"):
            raise RuntimeError("the HTTP recorder did not start")
        # It prints a line per request: read them, or its pipe fills and it stops answering.
        threading.Thread(target=server.stdout.read, daemon=True).start()
        drained, seconds = publish(later, port, outbox)
    finally:
        server.terminate()
        server.wait()
    summary = json.loads(drained.stdout.splitlines()[-1])
    if drained.returncode != 0 or summary["sent"] != QUEUED + 1:
        raise RuntimeError(f"draining: exit {drained.returncode}: {drained.stdout} {drained.stderr}")
    row(f"locate publish: {QUEUED:,} queued positions drained over HTTP (OwnTracks POSTs to Python's http.server)",
        f"{seconds:.2f} s ({QUEUED / seconds:,.0f} positions/s)", "—", "—", "report (MQTT's target: 5 s)", None)


if __name__ == "__main__":
    main()
