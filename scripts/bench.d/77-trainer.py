#!/usr/bin/python3
"""A smart trainer's control point round trip, and the CPU per notification of a foot pod's, a
treadmill's and a trainer's data read through `BluetoothSensor`, beside a strap's, over D-Bus.

A private dbus-daemon carries the fake BlueZ (`gpsbench fake-bluez`, a process of its own).

Round trip: a trainer sending its Indoor Bike Data once a second; `gpsbench trainer-commands`
reads it with a `BluetoothSensor`, asks for control and sets 500 target powers one after the
other, each timed from the call to its return (the request written with `WriteValue`, the
trainer's indication read, the status updated): the median and the 99th percentile. The peer is
bleak (the Python BLE client pycycling and pyftms drive trainers through, over the same bus),
timed the same way: a request written (with a response) and its indication awaited. The sensor
reads the bus at most every 20 ms while it reads measurements (a notification waits up to that
long, so that a sensor sending 1,000 a second wakes its thread 50 times a second, not 1,000): an
indication waits for the next read too.

CPU per notification: a strap, a foot pod, a treadmill and a trainer each sending 1,000
notifications a second; `gpsbench sensor-read` reads one of them at a time with a
`BluetoothSensor` whose samples are delivered where they are read, taking turns over three rounds:
the reader's CPU time per notification (its share of the D-Bus messages, the decoder, the
selection of one series per type, the total distance's difference, the delivery), the median of
the rounds, beside the strap's read in the same rounds.

Target: 1,000 notifications a second of any of them at under 5 % of a core (50 µs each), as the
strap's (scripts/bench.d/75-bluetooth-sensor.py); the round trip has none of its own (a trainer
takes 50 to 200 ms to answer on its own): we measure what ours adds, beside bleak's.
"""
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BENCH_DIR, BIN, BUS_CONFIG, row  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KINDS = [("C0:FF:EE:00:00:01", "heart-rate", "strap"), ("C0:FF:EE:00:00:05", "foot-pod", "foot pod (RSC Measurement)"),
         ("C0:FF:EE:00:00:0A", "treadmill", "treadmill (Treadmill Data)"), ("C0:FF:EE:00:00:10", "trainer", "trainer (Indoor Bike Data)")]
TRAINER = "C0:FF:EE:00:00:10"

BLEAK_ROUND_TRIP = r'''
import asyncio, json, sys, time
from bleak import BleakClient, BleakScanner
CONTROL_POINT = "00002ad9-0000-1000-8000-00805f9b34fb"
async def main(address, count):
    device = await BleakScanner.find_device_by_address(address, timeout=10)
    async with BleakClient(device) as client:
        answers = asyncio.Queue()
        await client.start_notify(CONTROL_POINT, lambda _, data: answers.put_nowait(bytes(data)))
        await client.write_gatt_char(CONTROL_POINT, b"\x00", response=True)
        await answers.get()
        times = []
        for index in range(count):
            watts = 200 if index % 2 == 0 else 210
            started = time.perf_counter()
            await client.write_gatt_char(CONTROL_POINT, bytes([0x05, watts, 0]), response=True)
            answer = await answers.get()
            times.append((time.perf_counter() - started) * 1000)
            assert answer[:3] == bytes([0x80, 0x05, 0x01]), answer.hex()
        times.sort()
        print(json.dumps({"median_ms": times[len(times) // 2], "p99_ms": times[min(len(times) - 1, len(times) * 99 // 100)]}))
asyncio.run(main(sys.argv[1], int(sys.argv[2])))
'''


class FakeBlueZ:
    """A dbus-daemon and the fake BlueZ with `devices` sending every `every` µs, for a `with` block."""

    def __init__(self, devices, every):
        self.devices, self.every = devices, every

    def __enter__(self):
        self.folder = tempfile.mkdtemp(prefix="trainer-bench-", dir=BENCH_DIR)
        with open(f"{self.folder}/bus.conf", "w") as file:
            file.write(BUS_CONFIG.format(folder=self.folder))
        self.bus = subprocess.Popen(
            ["dbus-daemon", f"--config-file={self.folder}/bus.conf", "--nofork", "--nopidfile", "--print-address=1"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.address = self.bus.stdout.readline().strip().split(",")[0]
        command = [f"{BIN}/gpsbench", "fake-bluez", "--bus", self.address, "--every", str(self.every)]
        for address, kind in self.devices:
            command += ["--device", f"{address}:{kind}"]
        self.bluez = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if self.bluez.stdout.readline().strip() != "ready":
            raise RuntimeError("the fake BlueZ did not start")
        return self

    def __exit__(self, *exc):
        self.bluez.send_signal(signal.SIGTERM)
        self.bluez.communicate(timeout=10)
        self.bus.terminate()
        self.bus.wait()


def gpsbench(*arguments):
    return json.loads(subprocess.run([f"{BIN}/gpsbench", *arguments], capture_output=True, text=True, check=True, timeout=600).stdout)


def bleak_round_trip(bus, count):
    python = os.environ.get("BLE_PEERS_PYTHON") or os.path.join(ROOT, ".cache/ble-peers/bin/python3")
    if not os.access(python, os.X_OK):
        return None
    result = subprocess.run([python, "-c", BLEAK_ROUND_TRIP, TRAINER, str(count)], capture_output=True, text=True, timeout=600,
                            env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus))
    return json.loads(result.stdout.strip().splitlines()[-1]) if result.returncode == 0 else None


def main():
    if not os.path.exists("/usr/bin/dbus-daemon"):
        row("Trainer control point round trip", "skipped", "needs dbus-daemon", "-", "-", None)
        return
    count = 500
    with FakeBlueZ([(TRAINER, "trainer")], every=1_000_000) as fake:
        ours = gpsbench("trainer-commands", "--bus", fake.address, "--address", TRAINER, "--count", str(count))
        peer = bleak_round_trip(fake.address, count)
    peers = (f"bleak: median {peer['median_ms']:.2f} ms, p99 {peer['p99_ms']:.2f} ms" if peer
             else "bleak not installed (scripts/install-ble-peers)")
    ratio = f"{ours['median_ms'] / peer['median_ms']:.2f}x bleak's median" if peer else "-"
    row(f"Trainer control point round trip through BluetoothSensor over D-Bus ({count} target powers, the fake trainer in "
        f"its own process): median; p99 (max {ours['max_ms']:.1f} ms)",
        f"{ours['median_ms']:.2f} ms; {ours['p99_ms']:.2f} ms", peers, ratio, "—", None)

    rounds = {kind: [] for _, kind, _ in KINDS}
    with FakeBlueZ([(address, kind) for address, kind, _ in KINDS], every=1_000) as fake:
        for _ in range(3):
            for address, kind, _ in KINDS:
                figures = gpsbench("sensor-read", "--bus", fake.address, "--address", address, "--notifications", "20000")
                rounds[kind].append(figures)
    strap = statistics.median(figures["cpu_per_notification_us"] for figures in rounds["heart-rate"])
    for _, kind, name in KINDS:
        figure = statistics.median(figures["cpu_per_notification_us"] for figures in rounds[kind])
        taken = rounds[kind][-1]
        row(f"A {name} at 1,000 notifications/s read through BluetoothSensor, CPU per notification "
            f"({taken['notifications']:,} read in {taken['seconds']:.1f} s, {taken['samples']:,} samples, {taken['dropped']} dropped)",
            f"{figure:.1f} µs", "-", f"{figure / strap:.2f}x the strap's", "< 50 µs (5 % of a core at 1,000/s)",
            figure < 50 and taken["dropped"] == 0)


if __name__ == "__main__":
    main()
