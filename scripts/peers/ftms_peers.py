#!/usr/bin/env python3
"""What pycycling and pyftms (PyPI) read in Fitness Machine Service values, and what they build
for the control point, and what bluetooth-sig (PyPI) reads in an RSC Measurement: one JSON object
per line on standard output for each JSON request read on standard input, for the tests that hold
BluetoothGATT's decoders and encoders to them.

    ftms_peers.py < requests.jsonl

A request is {"read": KIND, "hex": "..."} with KIND one of indoor_bike, treadmill, status,
training_status, feature, response, rsc, or range_speed, range_inclination, range_resistance,
range_heart_rate, range_power; or {"build": PEER, "op": NAME, "value": ...} for a control-point
request one of the peers builds (the answer's "hex"). Each answer has a key per peer that read or
built it, with its values (keys as the peer names them; enumerations by number) or {"error": TEXT}.
Installed by scripts/install-ble-peers into .cache/ble-peers.
"""
import dataclasses
import enum
import io
import json
import sys
import warnings

warnings.simplefilter("ignore")


def plain(value):
    """A JSON value: enumerations by number, tuples and named tuples as lists, dataclasses as dicts."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, bool):
        return value
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if dataclasses.is_dataclass(value):
        return {field.name: plain(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def attempt(function, *arguments):
    try:
        return plain(function(*arguments))
    except Exception as error:  # what the peer says when it cannot read the value
        return {"error": f"{type(error).__name__}: {error}"}


def pyftms_read(model, data):
    from pyftms import models
    return getattr(models, model)._deserialize(io.BytesIO(data))


def pyftms_range(form, data):
    from pyftms.serializer import get_serializer
    serializer, source = get_serializer(form), io.BytesIO(data)
    values = [serializer.deserialize(source) for _ in range(3)]
    if source.read():
        raise ValueError("bytes after the range")
    return values


def read(kind, data):
    from pycycling import fitness_machine_service as fms
    from pycycling.ftms_parsers import (parse_all_features, parse_control_point_response, parse_fitness_machine_status,
                                        parse_indoor_bike_data, parse_training_status)
    answer = {}
    if kind == "indoor_bike":
        answer["pycycling"] = attempt(parse_indoor_bike_data, data)
        answer["pyftms"] = attempt(pyftms_read, "IndoorBikeData", data)
    elif kind == "treadmill":
        answer["pyftms"] = attempt(pyftms_read, "TreadmillData", data)
    elif kind == "status":
        answer["pycycling"] = attempt(parse_fitness_machine_status, data)
        answer["pyftms"] = attempt(pyftms_read, "MachineStatusModel", data)
    elif kind == "training_status":
        answer["pycycling"] = attempt(parse_training_status, data)
        answer["pyftms"] = attempt(pyftms_read, "TrainingStatusModel", data)
    elif kind == "feature":
        answer["pycycling"] = attempt(lambda d: [features._asdict() for features in parse_all_features(d)], data)
    elif kind == "response":
        answer["pycycling"] = attempt(parse_control_point_response, data)
        answer["pyftms"] = attempt(pyftms_read, "ControlIndicateModel", data)
    elif kind == "rsc":
        from bluetooth_sig.gatt.characteristics.rsc_measurement import RSCMeasurementCharacteristic
        answer["bluetooth_sig"] = attempt(lambda d: {
            name: getattr(value, name) if not isinstance(getattr(value, name), enum.Enum) else int(getattr(value, name))
            for value in [RSCMeasurementCharacteristic().parse_value(d)]
            for name in ("instantaneous_speed", "instantaneous_cadence", "is_running", "instantaneous_stride_length", "total_distance")
        }, data)
    elif kind.startswith("range_"):
        which = kind[len("range_"):]
        form = {"speed": "u2.01", "inclination": "s2.1", "resistance": "s2.1", "heart_rate": "u1", "power": "s2"}[which]
        answer["pyftms"] = attempt(pyftms_range, form, data)
        if which == "resistance":
            answer["pycycling"] = attempt(fms._parse_supported_resistance_level_range, data)
        if which == "power":
            answer["pycycling"] = attempt(fms._parse_supported_power_range, data)
    else:
        raise ValueError(f"unknown kind {kind}")
    return answer


def build(peer, op, value):
    if peer == "pycycling":
        from pycycling.ftms_parsers import FTMSControlPointOpCode, form_ftms_control_command
        return bytes(form_ftms_control_command(FTMSControlPointOpCode[op], value if value is not None else 0))
    from pyftms import models
    if op in ("REQUEST_CONTROL", "RESET", "START_RESUME"):
        model = models.ControlModel(code=models.ControlCode[op])
    elif op == "indoor_bike_simulation":
        model = models.ControlModel(indoor_bike_simulation=models.IndoorBikeSimulationParameters(*value))
    elif op == "stop_pause":
        model = models.ControlModel(stop_pause=models.StopPauseCode(value))
    elif op == "spin_down":
        from pyftms.models import SpinDownControlCode
        model = models.ControlModel(spin_down=SpinDownControlCode(value))
    elif op == "target_time":
        model = models.ControlModel(target_time=tuple(value))
    else:
        model = models.ControlModel(**{op: value})
    out = io.BytesIO()
    model._serialize(out)
    return out.getvalue()


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if "read" in request:
            answer = read(request["read"], bytes.fromhex(request["hex"]))
        else:
            try:
                answer = {request["build"]: {"hex": build(request["build"], request["op"], request.get("value")).hex()}}
            except Exception as error:  # what the peer says when it cannot build the request
                answer = {request["build"]: {"error": f"{type(error).__name__}: {error}"}}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
