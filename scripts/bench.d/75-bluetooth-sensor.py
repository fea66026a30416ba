#!/usr/bin/python3
"""A Bluetooth heart-rate strap sending 1,000 notifications a second, read by `workout record
--sensor` into a live session, beside bleak (the Python BLE client, over the same D-Bus) reading
the same strap.

A private dbus-daemon carries the fake BlueZ (`gpsbench fake-bluez`: one strap riding a seeded
model, a Heart Rate Measurement every millisecond). `workout record --simulate` replays a walk at
1 Hz for DURATION seconds into a store of its own, once without the sensor and once with it: the
difference in the process's CPU time (user + system) is what the sensor path costs, from the
connection through the D-Bus messages, the decoder and the session to the samples written to
the store; divided by the run's wall time it is the share of a core. Counted against us: the
connection and the service discovery are in the difference. bleak's figure is its steady state
only (from its first notification to its last; Python's start, the scan and the connection are
left out). The dbus-daemon's CPU and the fake BlueZ's are shown beside, for our run and for
bleak's, as the daemon routes every notification to either and the fake sends them all.

A second row measures the decoder and session path alone, in one process without the bus
(`gpsbench sensor-path`): 1,000 Heart Rate Measurements a second decoded into samples and taken by
a live session that writes them to a store file beside 1 Hz fixes, on a virtual clock, each
second's measurements handed over together (so no thread is woken for each): its CPU per
measurement, less that of the same session without them.

Target (issues 19 and 26): 1,000 notifications a second of one sensor at under 5 % of a core, and
no more than bleak's share in the same run.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BENCH_DIR, BIN, BUS_CONFIG, row  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DURATION = int(os.environ.get("SENSOR_BENCH_SECONDS", "30"))
RATE = 1000
STRAP = "C0:FF:EE:00:00:01"
TRACK = os.path.join(ROOT, "fixtures/gpx/greenwich-walk.gpx")  # 109 s at 1 Hz: longer than DURATION


def cpu_of(pid):
    """A running process's CPU seconds (user + system), from /proc."""
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class FakeStrap:
    """A dbus-daemon and the fake BlueZ with one strap on it, for a `with` block."""

    def __enter__(self):
        self.folder = tempfile.mkdtemp(prefix="sensor-bench-", dir=BENCH_DIR)
        with open(f"{self.folder}/bus.conf", "w") as file:
            file.write(BUS_CONFIG.format(folder=self.folder))
        self.bus = subprocess.Popen(
            ["dbus-daemon", f"--config-file={self.folder}/bus.conf", "--nofork", "--nopidfile", "--print-address=1"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.address = self.bus.stdout.readline().strip().split(",")[0]
        self.bluez = subprocess.Popen(
            [f"{BIN}/gpsbench", "fake-bluez", "--bus", self.address, "--device", f"{STRAP}:heart-rate",
             "--every", str(1_000_000 // RATE)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if self.bluez.stdout.readline().strip() != "ready":
            raise RuntimeError("the fake BlueZ did not start")
        return self

    def __exit__(self, *exc):
        self.bluez.send_signal(signal.SIGTERM)
        self.sent = self.bluez.communicate(timeout=10)[0]
        self.bus.terminate()
        self.bus.wait()


def record(strap, with_sensor):
    """`workout record` of DURATION seconds: (wall s, CPU s, measurements the sensor took, bus CPU s, fake CPU s)."""
    store = os.path.join(strap.folder, f"record-{with_sensor}.sqlite")
    command = [f"{BIN}/workout", "record", "--store", store, "--simulate", TRACK, "--activity", "cycling",
               "--duration", str(DURATION), "--json"]
    if with_sensor:
        command += ["--sensor", STRAP, "--bus", strap.address]
    bus_before, fake_before = cpu_of(strap.bus.pid), cpu_of(strap.bluez.pid)
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if status != 0:
        raise RuntimeError(f"workout record exited {status >> 8}")
    sensors = json.loads(output).get("sensors", [])
    measurements = sensors[0]["measurements"] if sensors else 0
    return (wall, usage.ru_utime + usage.ru_stime, measurements, cpu_of(strap.bus.pid) - bus_before,
            cpu_of(strap.bluez.pid) - fake_before)


def bleak(strap):
    """bleak reading DURATION seconds of notifications: (notifications, wall s, CPU s, bus CPU s, fake CPU s), or None."""
    python = os.environ.get("BLE_PEERS_PYTHON") or os.path.join(ROOT, ".cache/ble-peers/bin/python3")
    if not os.access(python, os.X_OK):
        return None
    count = RATE * DURATION
    bus_before, fake_before, started = cpu_of(strap.bus.pid), cpu_of(strap.bluez.pid), time.perf_counter()
    result = subprocess.run([python, os.path.join(ROOT, "scripts/peers/bleak_heart_rate.py"), STRAP, str(count), "--quiet"],
                            capture_output=True, text=True, timeout=DURATION * 4 + 60,
                            env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=strap.address))
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    # The daemon's and the fake's shares over bleak's whole run (its start and scan included).
    wall = time.perf_counter() - started
    return (figures["notifications"], figures["seconds"], figures["cpu_seconds"], (cpu_of(strap.bus.pid) - bus_before) / wall,
            (cpu_of(strap.bluez.pid) - fake_before) / wall)


def main():
    if not os.path.exists("/usr/bin/dbus-daemon"):
        row("Bluetooth sensor, 1,000 notifications/s", "skipped", "needs dbus-daemon", "-", "-", None)
        return
    with FakeStrap() as strap:
        baseline = record(strap, with_sensor=False)
        sensor = record(strap, with_sensor=True)
        peer = bleak(strap)
    wall = sensor[0]
    share = (sensor[1] - baseline[1]) / wall
    taken = sensor[2] / wall
    per_notification_us = (sensor[1] - baseline[1]) / max(sensor[2], 1) * 1e6
    peers = (f"without the sensor {baseline[1]:.2f} s CPU, with it {sensor[1]:.2f} s, in {wall:.1f} s; "
             f"dbus-daemon {sensor[3] / wall * 100:.1f} %, fake BlueZ {sensor[4] / wall * 100:.1f} %")
    bleak_share = None
    if peer:
        count, seconds, cpu, bus_share, fake_share = peer
        bleak_share = cpu / seconds
        peers += (f"; bleak {count / seconds:,.0f}/s at {bleak_share * 100:.1f} % of a core"
                  f" ({cpu / count * 1e6:.0f} us each; dbus-daemon {bus_share * 100:.1f} %, fake BlueZ {fake_share * 100:.1f} %)")
        ratio = f"{share / bleak_share:.2f}x bleak; {share * 100 / 5:.2f}x the target"
    else:
        peers += "; bleak not installed (scripts/install-ble-peers)"
        ratio = f"{share * 100 / 5:.2f}x the target"
    path = json.loads(subprocess.run(
        [f"{BIN}/gpsbench", "sensor-path", "--rate", str(RATE), "--seconds", "120", "--store", os.path.join(BENCH_DIR, "sensor-path.sqlite")],
        capture_output=True, text=True, check=True).stdout)
    path_share = path["cpu_per_notification_us"] * RATE / 1e6
    row(f"Bluetooth decoder and session path alone, {RATE:,} heart-rate measurements/s into a live session and a store file: CPU share of a core "
        f"({path['cpu_per_notification_us']:.1f} us each; {path['samples']:,} of {path['notifications']:,} saved)",
        f"{path_share * 100:.2f} %", "-", f"{path_share * 100 / 5:.2f}x the target", "< 5 % of a core",
        path_share < 0.05 and path["samples"] == path["notifications"])
    row(f"Bluetooth heart-rate strap at {RATE:,} notifications/s over D-Bus into `workout record`: CPU share of a core "
        f"({taken:,.0f} measurements/s taken, {per_notification_us:.0f} us each)",
        f"{share * 100:.1f} %", peers, ratio, "< 5 % of a core, at most bleak's",
        share < 0.05 and taken >= RATE * 0.95 and (bleak_share is None or share <= bleak_share))


if __name__ == "__main__":
    main()
