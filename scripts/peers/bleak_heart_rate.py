#!/usr/bin/env python3
"""Reads a heart-rate strap with bleak, a BLE client library we did not write, through BlueZ on the
bus DBUS_SYSTEM_BUS_ADDRESS names (the fake BlueZ in our tests).

Usage: bleak_heart_rate.py ADDRESS COUNT [--quiet]

Finds the device by a scan, connects, reads its body sensor location, turns notifications of the
Heart Rate Measurement on and prints `ready`; then prints each notification as
one JSON line: its bytes, and the heart rate and RR intervals decoded here, by the Heart Rate
Service specification (not by our decoder); after COUNT of them turns notifications off and
disconnects. The first line is a JSON object of what it found: name, services, location. With
--quiet (for scripts/bench.d/75-bluetooth-sensor.py) it decodes each notification but prints, after
the COUNT-th, one JSON line: the notifications, and the wall and CPU seconds they took, counted
from the first one (so neither Python's start nor the scan and connection are in them). (Its
battery is not among them: BlueZ's battery plugin takes the Battery Service, and shows the level as
the device's org.bluez.Battery1, which bleak does not read.)
"""
import asyncio
import json
import sys
import time

from bleak import BleakClient, BleakScanner


def uuid16(short):
    return f"0000{short:04x}-0000-1000-8000-00805f9b34fb"


HEART_RATE_MEASUREMENT = uuid16(0x2A37)
BODY_SENSOR_LOCATION = uuid16(0x2A38)


def decode(data):
    """Heart Rate Measurement: flags; the rate as uint8 or uint16 (bit 0); no value without skin
    contact where contact is sensed (bits 1-2); energy expended (bit 3); RR intervals in 1/1024 s (bit 4)."""
    flags = data[0]
    index = 1
    if flags & 0x01:
        rate = int.from_bytes(data[index:index + 2], "little")
        index += 2
    else:
        rate = data[index]
        index += 1
    if flags & 0x04 and not flags & 0x02:
        rate = None
    if flags & 0x08:
        index += 2
    intervals = []
    if flags & 0x10:
        while index + 1 < len(data):
            intervals.append(int.from_bytes(data[index:index + 2], "little") / 1024)
            index += 2
    return rate, intervals


async def main(address, count, quiet=False):
    device = await BleakScanner.find_device_by_address(address, timeout=10)
    if device is None:
        print(json.dumps({"error": f"{address} not found"}), flush=True)
        return 1
    async with BleakClient(device) as client:
        location = await client.read_gatt_char(BODY_SENSOR_LOCATION)
        print(json.dumps({
            "name": device.name, "services": sorted(service.uuid for service in client.services),
            "body_location": location[0],
        }), flush=True)
        received = asyncio.Queue()
        await client.start_notify(HEART_RATE_MEASUREMENT, lambda _, data: received.put_nowait(bytes(data)))
        print("ready", flush=True)
        started = None
        for _ in range(count):
            data = await received.get()
            if started is None:
                started = (time.perf_counter(), time.process_time())
            rate, intervals = decode(data)
            if not quiet:
                print(json.dumps({"bytes": data.hex(), "heart_rate": rate, "rr": intervals}), flush=True)
        if quiet:
            print(json.dumps({"notifications": count, "seconds": time.perf_counter() - started[0],
                              "cpu_seconds": time.process_time() - started[1]}), flush=True)
        await client.stop_notify(HEART_RATE_MEASUREMENT)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], int(sys.argv[2]), quiet="--quiet" in sys.argv[3:])))
