#!/usr/bin/python3
"""The decoders of the notifications a treadmill, a trainer and a foot pod send, per notification,
beside the heart-rate strap's, measured in the same run.

`gpsbench gatt-decode` decodes Indoor Bike Data, Treadmill Data and RSC Measurements (every field
their kinds have, 64 different values each, as `bytes` writes them) and Heart Rate Measurements,
taking turns in rounds, and gives each one's median time per notification. The peers are timed in
the same run on the same bytes (gpsbench prints the first of each):
pycycling's Indoor Bike Data parser, pyftms's Indoor Bike and Treadmill Data models, and
bluetooth-sig's RSC Measurement, in the BLE peers' venv (scripts/install-ble-peers).

Target (the issue: "the FTMS decoders per notification beside the strap's"): each under 1 µs a
notification, a fiftieth of the strap path's budget (5 % of a core at 1,000 notifications a
second is 50 µs each); the ratio column is each against the Heart Rate Measurement's.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BIN, row  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PEERS = r'''
import io, json, sys, timeit, warnings
warnings.simplefilter("ignore")
bike, treadmill, rsc = (bytes.fromhex(h) for h in sys.argv[1:4])
out = {}
def time(name, call):
    count = 20000
    out[name] = min(timeit.repeat(call, number=count, repeat=5)) / count * 1e9
try:
    from pycycling.ftms_parsers import parse_indoor_bike_data
    time("pycycling indoor bike", lambda: parse_indoor_bike_data(bike))
except Exception as error:
    out["pycycling error"] = str(error)
try:
    from pyftms.models import IndoorBikeData, TreadmillData
    time("pyftms indoor bike", lambda: IndoorBikeData._deserialize(io.BytesIO(bike)))
    time("pyftms treadmill", lambda: TreadmillData._deserialize(io.BytesIO(treadmill)))
except Exception as error:
    out["pyftms error"] = str(error)
try:
    from bluetooth_sig.gatt.characteristics.rsc_measurement import RSCMeasurementCharacteristic
    characteristic = RSCMeasurementCharacteristic()
    time("bluetooth-sig rsc", lambda: characteristic.parse_value(rsc))
except Exception as error:
    out["bluetooth-sig error"] = str(error)
print(json.dumps(out))
'''


def peers(bike, treadmill, rsc):
    python = os.environ.get("BLE_PEERS_PYTHON") or os.path.join(ROOT, ".cache/ble-peers/bin/python3")
    if not os.access(python, os.X_OK):
        return {}
    result = subprocess.run([python, "-c", PEERS, bike, treadmill, rsc], capture_output=True, text=True, timeout=600)
    return json.loads(result.stdout.strip().splitlines()[-1]) if result.returncode == 0 else {}


def main():
    ours = json.loads(subprocess.run([f"{BIN}/gpsbench", "gatt-decode"], capture_output=True, text=True, check=True).stdout)
    theirs = peers(ours["indoor_bike_data"]["hex"], ours["treadmill_data"]["hex"], ours["rsc_measurement"]["hex"])
    strap = ours["heart_rate_measurement"]["ns"]
    row(f"Heart Rate Measurement decoded, per notification ({ours['heart_rate_measurement']['bytes']} bytes, with energy and an RR interval)",
        f"{strap:.0f} ns", "-", "1.00x the strap's", "< 1 µs", strap < 1000)
    for key, name, peer_names in [
        ("indoor_bike_data", "Indoor Bike Data", ["pycycling indoor bike", "pyftms indoor bike"]),
        ("treadmill_data", "Treadmill Data", ["pyftms treadmill"]),
        ("rsc_measurement", "RSC Measurement", ["bluetooth-sig rsc"]),
    ]:
        figure = ours[key]["ns"]
        found = [f"{peer} {theirs[peer] / 1000:.1f} µs ({theirs[peer] / figure:.0f}x ours)" for peer in peer_names if peer in theirs]
        row(f"{name} decoded, per notification ({ours[key]['bytes']} bytes, every field), beside the strap's in the same run",
            f"{figure:.0f} ns", "; ".join(found) or "peers not installed (scripts/install-ble-peers)",
            f"{figure / strap:.2f}x the strap's", "< 1 µs", figure < 1000)


if __name__ == "__main__":
    main()
