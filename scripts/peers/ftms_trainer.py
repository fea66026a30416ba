#!/usr/bin/env python3
"""Drives a smart trainer's control point with a client we did not write, pycycling's
FitnessMachineService or pyftms's FitnessMachine (PyPI, over bleak), through BlueZ on the bus
DBUS_SYSTEM_BUS_ADDRESS names (the fake BlueZ in our tests).

Usage: ftms_trainer.py pycycling|pyftms ADDRESS TARGET_WATTS GRADE_PERCENT

Finds the trainer (pycycling: by its address; pyftms: by a scan for FTMS advertisements, which
reads the machine's type from their Service Data), connects, reads its features and power range,
and prints them as one JSON line; requests control (pyftms asks for it itself before its first
request) and sets a target power of TARGET_WATTS, then a simulated grade of GRADE_PERCENT,
printing each response as a JSON line ({"response": {"op": N, "result": N}}). Between them it
reads the trainer's Indoor Bike Data, one notification a step: before each it prints `tick N`
(the test then moves the trainer's clock on a second) and after it the values read, as
{"data": {"power": W, "speed_kmh": ..., "cadence": ...}}: in ERG until three in a row are within
3 W of the target (at most 30), in the simulation 15. It prints `done` at the end, or
{"error": TEXT}.
Installed by scripts/install-ble-peers into .cache/ble-peers.
"""
import asyncio
import json
import sys

from bleak import BleakClient, BleakScanner

TICK = [0]


def say(value):
    print(value if isinstance(value, str) else json.dumps(value), flush=True)


def tick():
    TICK[0] += 1
    say(f"tick {TICK[0]}")


async def erg_then_simulation(read, target, set_power, set_grade):
    """The steps both clients take, `read` giving the next data as a dict."""
    await set_power()
    within = 0
    for _ in range(30):
        data = await read()
        within = within + 1 if data["power"] is not None and abs(data["power"] - target) <= 3 else 0
        if within == 3:
            break
    await set_grade()
    for _ in range(15):
        await read()


async def with_pycycling(address, target, grade):
    from pycycling.fitness_machine_service import FitnessMachineService
    device = await BleakScanner.find_device_by_address(address, timeout=10)
    if device is None:
        return say({"error": f"{address} not found"})
    async with BleakClient(device) as client:
        ftms = FitnessMachineService(client)
        machine, targets = await ftms.get_all_features()
        power = await ftms.get_supported_power_range()
        say({"found": {"features": [name for name, on in machine._asdict().items() if on],
                       "targets": [name for name, on in targets._asdict().items() if on],
                       "power_range": list(power)}})
        responses, data = asyncio.Queue(), asyncio.Queue()
        ftms.set_control_point_response_handler(responses.put_nowait)
        ftms.set_indoor_bike_data_handler(data.put_nowait)
        await ftms.enable_control_point_indicate()
        await ftms.enable_indoor_bike_data_notify()

        async def answered(request):
            await request
            response = await asyncio.wait_for(responses.get(), 10)
            say({"response": {"op": response.request_code_enum.value, "result": response.result_code_enum.value}})

        async def read():
            tick()
            value = await asyncio.wait_for(data.get(), 10)
            reading = {"power": value.instant_power, "speed_kmh": value.instant_speed, "cadence": value.instant_cadence}
            say({"data": reading})
            return reading

        await answered(ftms.request_control())
        await erg_then_simulation(
            read, target, lambda: answered(ftms.set_target_power(target)),
            # wind 0 mm/s, the grade in 0.01 %, rolling resistance 0.004 (in 0.0001), wind resistance 0.51 kg/m (in 0.01)
            lambda: answered(ftms.set_simulation_parameters(0, round(grade * 100), 40, 51)))
        await ftms.disable_indoor_bike_data_notify()
    say("done")


async def with_pyftms(address, target, grade):
    from pyftms import get_client_from_address
    from pyftms.models import IndoorBikeSimulationParameters
    updates = asyncio.Queue()

    def event(e):
        if e.event_id == "update":
            updates.put_nowait(e.event_data)

    machine = await get_client_from_address(address, scan_timeout=10, timeout=10, on_ftms_event=event)
    await machine.connect()
    ranges = {name: list(value) for name, value in machine.supported_ranges.items()}
    say({"found": {"type": machine.machine_type.name, "targets": sorted(machine.supported_settings), "ranges": ranges}})

    async def answered(code, request):
        result = await request
        say({"response": {"op": code, "result": int(result)}})

    async def read():
        tick()
        while True:  # an update says what changed; the machine's properties hold the rest
            changed = await asyncio.wait_for(updates.get(), 10)
            if {"power_instant", "speed_instant", "distance_total"} & changed.keys():
                break
        reading = {"power": machine.power_instant, "speed_kmh": machine.speed_instant, "cadence": machine.cadence_instant}
        say({"data": reading})
        return reading

    simulation = IndoorBikeSimulationParameters(wind_speed=0, grade=grade, rolling_resistance=0.004, wind_resistance=0.51)
    # pyftms 0.4.15 lists a simulation's four fields among a machine's supported settings, not
    # "indoor_bike_simulation" itself (its _get_features goes into the nested model), so its
    # set_indoor_bike_simulation answers NOT_SUPPORTED without writing anything: the request goes
    # through the command writer its set_setting calls.
    assert "indoor_bike_simulation" not in machine.supported_settings and "grade" in machine.supported_settings
    await erg_then_simulation(
        read, target, lambda: answered(0x05, machine.set_target_power(target)),
        lambda: answered(0x11, machine._write_command(indoor_bike_simulation=simulation)))
    await machine.disconnect()
    say("done")


async def main(client, address, target, grade):
    try:
        await (with_pycycling if client == "pycycling" else with_pyftms)(address, target, grade)
    except Exception as error:  # what the client said, for the test's message
        say({"error": f"{type(error).__name__}: {error}"})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))))
