#!/usr/bin/python3
"""A GeoClue one-shot beside a gpsd one: `locate once --geoclue` and GeoClue's own `where-am-i`
(Debian's geoclue-2-demo, C over GLib's GDBus) against the real GeoClue 2.6, run on a private bus
with a configuration of its own (as the GeoClue tests run it: needs root for its mount
namespace), fed NMEA through its socket; and, in the same run, `locate once` and the C libgps
one-shot client against a gpsd feed (as scripts/bench.d/20-once-latency.py measures them).

GeoClue opens its NMEA socket when a client starts (and closes it when the client goes): the
feed sends one GGA epoch as soon as GeoClue connects, so the latency runs from that epoch leaving
the feed to the client's line arriving on our pipe, through GeoClue's own parsing and its D-Bus hop.
CPU is the client process's (user + system), median of the runs.

Target (issue 17): none for latency; CPU per run at most 2x GeoClue's own client.
"""
import importlib.util
import os
import select
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BIN, BUS_CONFIG, c_tool, row  # noqa: E402

RUNS = int(os.environ.get("GEOCLUE_RUNS", "30"))
GEOCLUE = "/usr/libexec/geoclue"
WHERE_AM_I = "/usr/libexec/geoclue-2.0/demos/where-am-i"
GGA = b"$GPGGA,100000.00,5128.675680,N,00000.092700,W,1,07,0.9,30.000,M,45.6,M,,*4D\r\n"
GEOCLUE_CONFIG = "".join(f"[{source}]\nenable=false\n" for source in ["3g", "cdma", "modem-gps", "wifi", "compass", "static-source"])
GEOCLUE_CONFIG = "[agent]\nwhitelist=geoclue-demo-agent\n[network-nmea]\nenable=true\n" + GEOCLUE_CONFIG


class PrivateGeoClue:
    """dbus-daemon, GeoClue and our agent, on a bus of their own; the NMEA socket GeoClue reads."""

    def __enter__(self):
        self.folder = tempfile.mkdtemp(prefix="geoclue-bench-", dir=os.environ.get("BENCH_DIR"))
        with open(f"{self.folder}/bus.conf", "w") as file:
            file.write(BUS_CONFIG.format(folder=self.folder))
        with open(f"{self.folder}/geoclue.conf", "w") as file:
            file.write(GEOCLUE_CONFIG)
        self.bus = subprocess.Popen(
            ["dbus-daemon", f"--config-file={self.folder}/bus.conf", "--nofork", "--nopidfile", "--print-address=1"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.address = self.bus.stdout.readline().strip().split(",")[0]
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.address)
        self.socket_path = f"{self.folder}/nmea.sock"
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(self.socket_path)
        self.listener.listen(4)
        script = 'mount --bind "$1" /etc/geoclue/geoclue.conf && exec "$2" -t 0 --nmea-socket "$3"'
        self.geoclue = subprocess.Popen(
            ["unshare", "-m", "/bin/sh", "-c", script, "geoclue", f"{self.folder}/geoclue.conf", GEOCLUE, self.socket_path],
            env=self.env, stderr=subprocess.DEVNULL)
        self.agent = None
        deadline = time.time() + 10
        while time.time() < deadline:  # GeoClue takes the agent once it is on the bus
            self.agent = subprocess.Popen([f"{BIN}/gpsbench", "geoclue-agent", "--bus", self.address],
                                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            if self.agent.stdout.readline().strip() == "registered":
                break
            self.agent.wait()
            time.sleep(0.1)
        else:
            raise RuntimeError("GeoClue did not take the agent")
        self.readers = []
        return self

    def __exit__(self, *exc):
        for process in (self.agent, self.geoclue, self.bus):
            if process:
                process.terminate()
                process.wait()
        self.listener.close()

    def one_run(self, command, done):
        """Spawns `command`; sends one epoch when GeoClue connects for it; returns (latency s, cpu s)
        once `done(line)` holds for a line it printed (the process is then ended)."""
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self.env)
        sent_at = None
        while sent_at is None:
            readable, _, _ = select.select([self.listener] + self.readers, [], [], 10)
            if not readable:
                raise RuntimeError(f"GeoClue never read the NMEA socket for {command[0]}")
            for reader in [r for r in readable if r in self.readers]:
                if not reader.recv(4096):  # GeoClue closed the last client's reading
                    self.readers.remove(reader)
                    reader.close()
            if self.listener in readable:
                reader, _ = self.listener.accept()
                self.readers.append(reader)
                reader.sendall(GGA)
                sent_at = time.perf_counter()
        printed_at = None
        for line in process.stdout:
            if done(line.decode()):
                printed_at = time.perf_counter()
                break
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        _, status, usage = os.wait4(process.pid, 0)
        if printed_at is None:
            raise RuntimeError(f"{command[0]} printed no location (status {status})")
        return printed_at - sent_at, usage.ru_utime + usage.ru_stime


def gpsd_runs():
    """`locate once` and the C libgps one-shot against the gpsd feed of 20-once-latency.py."""
    spec = importlib.util.spec_from_file_location("once_latency", os.path.join(os.path.dirname(__file__), "20-once-latency.py"))
    once = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(once)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    host, port = listener.getsockname()
    results = {}
    for name, command in {"locate once (gpsd)": [f"{BIN}/locate", "once", f"{host}:{port}", "--timeout", "10"],
                          "C libgps (gpsd)": [c_tool("libgps-once"), host, str(port)]}.items():
        runs = [once.one_run(command, listener) for _ in range(RUNS)]
        results[name] = ([run[0] for run in runs], [run[1] for run in runs])
    listener.close()
    return results


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    if os.geteuid() != 0 or not os.path.exists(GEOCLUE) or not os.path.exists(WHERE_AM_I):
        row("GeoClue one-shot", "skipped", "needs root, geoclue-2.0 and geoclue-2-demo", "-", "-", None)
        return
    results = {}
    with PrivateGeoClue() as geoclue:
        clients = {
            "locate once --geoclue": ([f"{BIN}/locate", "once", "--geoclue", "--bus", geoclue.address, "--timeout", "10"],
                                      lambda line: bool(line.strip())),
            "where-am-i": ([WHERE_AM_I, "-t", "10"], lambda line: line.startswith("Longitude:")),
        }
        for name, (command, done) in clients.items():
            runs = [geoclue.one_run(command, done) for _ in range(RUNS)]
            results[name] = ([run[0] for run in runs], [run[1] for run in runs])
    results.update(gpsd_runs())

    def ms(seconds):
        return f"{seconds * 1000:.2f} ms"

    def latency(name):
        values = results[name][0]
        return f"{ms(statistics.median(values))} / {ms(percentile(values, 0.99))}"

    def cpu(name):
        return statistics.median(results[name][1])

    row("GeoClue one-shot latency, NMEA epoch sent to fix printed (median / p99)", latency("locate once --geoclue"),
        f"where-am-i {latency('where-am-i')}; on gpsd: locate once {latency('locate once (gpsd)')}, C libgps {latency('C libgps (gpsd)')}",
        f"{(statistics.median(results['locate once --geoclue'][0]) - statistics.median(results['where-am-i'][0])) * 1000:+.2f} ms vs where-am-i",
        "none set", None)
    ratio = cpu("locate once --geoclue") / cpu("where-am-i")
    row("GeoClue one-shot CPU per run (median)", ms(cpu("locate once --geoclue")),
        f"where-am-i {ms(cpu('where-am-i'))}; on gpsd: locate once {ms(cpu('locate once (gpsd)'))}, C libgps {ms(cpu('C libgps (gpsd)'))}",
        f"{ratio:.1f}x where-am-i", "<= 2x where-am-i", ratio <= 2)


if __name__ == "__main__":
    main()
