#!/usr/bin/python3
"""One-shot clients: `locate once`, a C libgps one-shot client (scripts/bench.d/c/libgps-once.c)
and Python's gps module, each run 100 times against the same feed: a minimal gpsd (in this
script) that answers WATCH and then sends one qualifying TPV.

- Latency: from the TPV leaving the feed (its send() returning) to the client's output line
  arriving on our pipe; median and p99. Target: within 2 ms of the C client.
- CPU of one run (user + system of the whole process). Target: at most 2x the C client.
- `locate once --max-age 10` answered from gpsd's cached fix (?POLL;): wall time of the whole
  process, from spawn to exit. Target: under 20 ms. The feed's clock is right (its answer is dated
  a second after its fix), as --gpsd-clock synchronized tells locate: by default locate asks the
  kernel, and would wait for a new fix on a machine whose clock is not synchronized.
"""
import os
import select
import socket
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BIN, c_tool, row  # noqa: E402

RUNS = int(os.environ.get("ONCE_RUNS", "100"))
TPV = (b'{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2024-05-01T10:00:00.000Z","ept":0.005,'
       b'"lat":51.477928000,"lon":-0.001545000,"altHAE":75.6000,"altMSL":30.0000,"alt":30.0000,'
       b'"epx":3.214,"epy":4.101,"epv":7.250,"track":224.2000,"speed":2.839,"climb":0.012,"eps":0.81,'
       b'"eph":5.210}\r\n')
VERSION = b'{"class":"VERSION","release":"3.22","rev":"3.22 (bench feed)","proto_major":3,"proto_minor":14}\r\n'
DEVICES = (b'{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyUSB0","driver":"NMEA0183",'
           b'"activated":"2024-05-01T09:00:00.000Z","flags":1,"native":0,"bps":4800,"parity":"N","stopbits":1,'
           b'"cycle":1.00}]}\r\n')
WATCH = b'{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}\r\n'
POLL = (b'{"class":"POLL","time":"2024-05-01T10:00:01.000Z","active":1,"tpv":[' + TPV.rstrip() +
        b'],"gst":[],"sky":[]}\r\n')

PYTHON_ONCE = r"""
import sys, gps
session = gps.gps(host=sys.argv[1], port=sys.argv[2], mode=gps.WATCH_ENABLE | gps.WATCH_JSON)
for report in session:
    if report is not None and report.get("class") == "TPV" and report.get("mode", 0) >= 2:
        print("%.9f %.9f" % (report.lat, report.lon), flush=True)
        break
"""


def send(connection, data):
    """Sends `data`, unless the client has already gone: a client answered from ?POLL; may print
    and close while the feed is still answering its WATCH (a real gpsd shrugs that off too)."""
    try:
        connection.sendall(data)
        return True
    except (BrokenPipeError, ConnectionResetError):
        return False


def one_run(command, listener, answer_poll=False):
    """Spawns `command`, serves it one fix; returns (latency s or None, cpu s, wall s)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    connection, _ = listener.accept()
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    send(connection, VERSION)
    pending = b""
    sent_at = None
    while sent_at is None:
        readable, _, _ = select.select([connection, process.stdout], [], [], 5)
        if not readable:
            raise RuntimeError(f"{command[0]} stalled")
        if process.stdout in readable:  # answered from ?POLL; before any TPV was sent
            break
        try:
            chunk = connection.recv(4096)
        except ConnectionResetError:
            break
        if not chunk:
            break
        pending += chunk
        if b"?POLL;" in pending and answer_poll:
            send(connection, POLL)
            pending = pending.replace(b"?POLL;", b"")
        if b"?WATCH" in pending and (b";" in pending.split(b"?WATCH", 1)[1] or b"\n" in pending):
            send(connection, DEVICES + WATCH)
            pending = pending.split(b"?WATCH", 1)[0]
            if not answer_poll and send(connection, TPV):
                sent_at = time.perf_counter()
    line = process.stdout.readline()
    printed_at = time.perf_counter()
    _, status, usage = os.wait4(process.pid, 0)
    ended_at = time.perf_counter()
    connection.close()
    if status != 0 or not line:
        raise RuntimeError(f"{' '.join(command)} exited with {status}, printed {line!r}")
    latency = printed_at - sent_at if sent_at else None
    return latency, usage.ru_utime + usage.ru_stime, ended_at - started


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    host, port = listener.getsockname()
    address = f"{host}:{port}"
    clients = {
        "locate once": [f"{BIN}/locate", "once", address, "--timeout", "10"],
        "C libgps": [c_tool("libgps-once"), host, str(port)],
        "python3 gps": ["/usr/bin/python3", "-c", PYTHON_ONCE, host, str(port)],
    }
    results = {}
    for name, command in clients.items():
        runs = [one_run(command, listener) for _ in range(RUNS)]
        results[name] = runs
    maxage = [one_run([f"{BIN}/locate", "once", address, "--max-age", "10", "--gpsd-clock", "synchronized", "--timeout", "10"],
                      listener, answer_poll=True)
              for _ in range(RUNS)]

    def ms(seconds):
        return f"{seconds * 1000:.2f} ms"

    latency = {name: [run[0] for run in runs] for name, runs in results.items()}
    cpu = {name: statistics.median(run[1] for run in runs) for name, runs in results.items()}
    ours, c = latency["locate once"], latency["C libgps"]
    gap = statistics.median(ours) - statistics.median(c)
    row("locate once latency, TPV sent to fix printed (median / p99)",
        f"{ms(statistics.median(ours))} / {ms(percentile(ours, 0.99))}",
        f"C libgps {ms(statistics.median(c))} / {ms(percentile(c, 0.99))}; python3 gps "
        f"{ms(statistics.median(latency['python3 gps']))} / {ms(percentile(latency['python3 gps'], 0.99))}",
        f"{gap * 1000:+.2f} ms vs C (median)", "within 2 ms of C", gap <= 0.002)
    ratio = cpu["locate once"] / cpu["C libgps"]
    row("locate once CPU per run (median)", ms(cpu["locate once"]),
        f"C libgps {ms(cpu['C libgps'])}; python3 gps {ms(cpu['python3 gps'])}",
        f"{ratio:.1f}x C", "<= 2x C", ratio <= 2)
    walls = [run[2] for run in maxage]
    row("locate once --max-age (cached fix), whole process wall (median / p99)",
        f"{ms(statistics.median(walls))} / {ms(percentile(walls, 0.99))}", "-", "-", "< 20 ms", statistics.median(walls) < 0.020)


if __name__ == "__main__":
    main()
