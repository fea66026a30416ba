#!/usr/bin/python3
"""Whole epochs: one-shot clients of real gpsd fed by a receiver whose sentences arrive spread out,
a sentence every 100 ms (RMC, GGA, GSA, 2 GSV, VTG: the epoch's accuracies come 200 ms after its
first sentence, as at 4800 baud), measured on the first epoch of a receiver gpsd has just opened.

Each run starts a fresh gpsd (`gpsd -N -b`, which opens the device at its first watcher and has
not learnt which sentence ends the receiver's epoch, as after a boot or for a cron job), and the
clients watching it: `locate once` (which waits for the whole epoch), `locate once --epoch-wait
0` (the first report, as a plain libgps client takes it), the C libgps one-shot client
(scripts/bench.d/c/libgps-epoch-once.c), and this script's own watcher, which timestamps every TPV
gpsd sends. Then the receiver starts sending, one epoch a second.

- Latency from the epoch's first sentence written to the fix printed, per client (median / p99),
  and whether the fix printed had the accuracies and altitude its mode gives.
- Latency from the report a client printed reaching our watcher to the client printing it:
  what the client adds. Target: locate once within 2 ms of the C client.
"""
import calendar
import json
import math
import os
import pty
import re
import select
import socket
import statistics
import subprocess
import sys
import threading
import time
import tty

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BIN, c_tool, row  # noqa: E402

RUNS = int(os.environ.get("EPOCH_RUNS", "20"))
SPACING = 0.1  # seconds between sentences
GPSD = next((p for p in ("/usr/sbin/gpsd", "/usr/bin/gpsd", "/usr/local/sbin/gpsd") if os.path.exists(p)), None)


def sentence(body):
    checksum = 0
    for character in body:
        checksum ^= ord(character)
    return "$%s*%02X\r\n" % (body, checksum)


def epoch(second):
    """One second's sentences for a fix at `second` (Unix time), as our NMEA encoder writes them."""
    clock = time.strftime("%H%M%S", time.gmtime(second)) + ".00"
    date = time.strftime("%d%m%y", time.gmtime(second))
    return [sentence(body) for body in (
        "GPRMC,%s,A,5128.675680,N,00000.092700,W,5.519,224.20,%s,,,A" % (clock, date),
        "GPGGA,%s,5128.675680,N,00000.092700,W,1,07,0.9,30.000,M,45.6,M,," % clock,
        "GPGSA,A,3,02,05,12,15,18,21,25,,,,,,1.60,0.90,1.30",
        "GPGSV,2,1,08,02,62,041,44,05,48,118,41,12,35,203,39,15,27,290,36",
        "GPGSV,2,2,08,18,71,330,45,21,19,077,31,25,12,160,28,29,08,255,22",
        "GPVTG,224.20,T,,M,5.519,N,10.220,K,A",
    )]


class Receiver(threading.Thread):
    """Writes an epoch a second to the pseudo-terminal, a sentence every SPACING seconds, and notes
    when each epoch's first sentence was written."""

    def __init__(self, master):
        super().__init__(daemon=True)
        self.master = master
        self.started = {}  # epoch second -> perf_counter of its RMC
        self.stop = threading.Event()

    def run(self):
        second = math.floor(time.time()) + 1
        while not self.stop.is_set():
            time.sleep(max(0, second - time.time()))
            for index, line in enumerate(epoch(second)):
                if index == 0:
                    self.started[second] = time.perf_counter()
                try:
                    os.write(self.master, line.encode())
                except OSError:
                    pass
                time.sleep(SPACING)
            try:  # throw away what gpsd wrote to the receiver (probes)
                while select.select([self.master], [], [], 0)[0] and os.read(self.master, 4096):
                    pass
            except OSError:
                pass
            second += 1


class Watcher(threading.Thread):
    """Our own client of gpsd: every TPV line it receives, with when."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.socket = socket.create_connection(("127.0.0.1", port))
        self.socket.sendall(b'?WATCH={"enable":true,"json":true};\n')
        self.reports = []  # (perf_counter, report)

    def run(self):
        pending = b""
        while True:
            try:
                chunk = self.socket.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            now = time.perf_counter()
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if b'"class":"TPV"' in line:
                    self.reports.append((now, json.loads(line)))


class GPSDLog(threading.Thread):
    """Reads gpsd's log (-D 2) as it comes, so that gpsd never blocks writing it, and notes the
    clients that have asked to watch."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream = stream
        self.watchers = set()
        self.changed = threading.Condition()

    def run(self):
        for line in self.stream:
            found = re.search(r"<= client\((\d+)\): \?WATCH=\{\"enable\":true", line)
            if found:
                with self.changed:
                    self.watchers.add(found.group(1))
                    self.changed.notify_all()

    def wait_for_watchers(self, count, deadline=10):
        with self.changed:
            if not self.changed.wait_for(lambda: len(self.watchers) >= count, timeout=deadline):
                raise RuntimeError(f"only {len(self.watchers)} of {count} clients watched gpsd")


def one_run(port_base, run):
    """One fresh gpsd and receiver; returns {client: (from epoch start, from report, complete)}."""
    master, slave = pty.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    os.chmod(path, 0o666)  # gpsd drops root before it opens the device
    port = port_base + run
    gpsd = subprocess.Popen([GPSD, "-N", "-b", "-D", "2", "-S", str(port), path],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    log = GPSDLog(gpsd.stderr)
    log.start()
    try:
        end = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                if time.monotonic() > end:
                    raise RuntimeError("gpsd did not listen")
                time.sleep(0.02)
        watcher = Watcher(port)
        watcher.start()
        address = f"127.0.0.1:{port}"
        clients = {
            "locate once": [f"{BIN}/locate", "once", address, "--format", "json", "--timeout", "20"],
            "locate once --epoch-wait 0": [f"{BIN}/locate", "once", address, "--format", "json", "--timeout", "20",
                                           "--epoch-wait", "0"],
            "C libgps": [c_tool("libgps-epoch-once"), "127.0.0.1", str(port)],
        }
        processes = {name: subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                     for name, command in clients.items()}
        printed_lines = {}  # name -> (perf_counter when its line came, line)

        def read(name, process):
            line = process.stdout.readline()
            printed_lines[name] = (time.perf_counter(), line)

        readers = [threading.Thread(target=read, args=item, daemon=True) for item in processes.items()]
        for reader in readers:
            reader.start()
        log.wait_for_watchers(len(clients) + 1)
        receiver = Receiver(master)
        receiver.start()
        results = {}
        for reader in readers:
            reader.join()
        for name, process in processes.items():
            printed, line = printed_lines[name]
            process.wait()
            if process.returncode != 0 or not line:
                raise RuntimeError(f"{name} exited with {process.returncode}, printed {line!r}")
            if name == "C libgps":
                second, mode, eph, epv, alt = line.split()
                second, mode = int(second), int(mode)
                fields = {"eph": float(eph), "epv": float(epv), "alt": float(alt)}
                complete = not math.isnan(fields["eph"]) and (mode < 3 or not (math.isnan(fields["epv"]) or math.isnan(fields["alt"])))
                same = lambda report: report.get("mode", 0) == mode and ("eph" in report) == (not math.isnan(fields["eph"]))  # noqa: E731
            else:
                fix = json.loads(line)
                second = calendar.timegm(time.strptime(fix["time"][:19], "%Y-%m-%dT%H:%M:%S"))
                mode = 3 if fix["mode"] == "3d" else 2
                complete = "h_accuracy" in fix and (mode < 3 or ("v_accuracy" in fix and "altitude" in fix))
                same = lambda report, fix=fix: report.get("eph") == fix.get("h_accuracy") and report.get("epv") == fix.get("v_accuracy")  # noqa: E731
            started = receiver.started[second]
            reports = [(at, report) for at, report in watcher.reports
                       if report.get("mode", 0) >= 2 and report.get("time", "").startswith(time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))]
            arrived = next((at for at, report in reports if same(report) and report.get("mode") == mode), None)
            results[name] = (printed - started, printed - arrived if arrived else None, complete, len(reports))
        receiver.stop.set()
        return results
    finally:
        gpsd.terminate()
        gpsd.wait()
        os.close(master)
        os.close(slave)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    if GPSD is None:
        row("one-shot on a spread epoch", "gpsd is not installed", "-", "-", "-", None)
        return
    port_base = 20000 + os.getpid() % 500 * 20  # below the ephemeral range
    runs = [one_run(port_base, run % 20) for run in range(RUNS)]

    def ms(seconds):
        return f"{seconds * 1000:.1f} ms"

    names = ["locate once", "locate once --epoch-wait 0", "C libgps"]
    start = {name: [run[name][0] for run in runs] for name in names}
    added = {name: [run[name][1] for run in runs if run[name][1] is not None] for name in names}
    complete = {name: sum(1 for run in runs if run[name][2]) for name in names}
    parts = statistics.median(run["C libgps"][3] for run in runs)

    def summary(name):
        return f"{ms(statistics.median(start[name]))} / {ms(percentile(start[name], 0.99))}, whole {complete[name]}/{RUNS}"

    row(f"one-shot on gpsd's first epoch of a receiver, a sentence every {int(SPACING * 1000)} ms: epoch's first sentence "
        f"to fix printed (median / p99; fixes with their mode's accuracy and altitude; gpsd sent {parts:.0f} reports of it)",
        summary("locate once"),
        f"C libgps {summary('C libgps')}; locate once --epoch-wait 0 {summary('locate once --epoch-wait 0')}",
        f"{(statistics.median(start['locate once']) - statistics.median(start['C libgps'])) * 1000:+.1f} ms vs C, for the whole epoch",
        "whole epochs", complete["locate once"] == RUNS)
    ours, c = added["locate once"], added["C libgps"]
    gap = statistics.median(ours) - statistics.median(c)
    row("one-shot on gpsd's first epoch: the report printed reaching a watcher to the client printing it (median / p99)",
        f"{ms(statistics.median(ours))} / {ms(percentile(ours, 0.99))}",
        f"C libgps {ms(statistics.median(c))} / {ms(percentile(c, 0.99))}; locate once --epoch-wait 0 "
        f"{ms(statistics.median(added['locate once --epoch-wait 0']))}",
        f"{gap * 1000:+.2f} ms vs C (median)", "within 2 ms of C", gap <= 0.002)


if __name__ == "__main__":
    main()
