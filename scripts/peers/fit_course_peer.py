#!/usr/bin/env python3
"""What Garmin's FIT decoder (PyPI garmin-fit-sdk) reads of FIT course files, as one JSON object
per file on standard output, for the tests that hold our course reader and writer to it.

    fit_course_peer.py FILE...

For each file: {"file", "file_types" (each file_id's type), "course" ({"name", "sport",
"capabilities"} of the first course message, or null), "records" (the count of records with a
position), "record_distances" (metres, null where a record has none), "course_points" ([type,
name, distance, latitude, longitude, timestamp] each: the type as FIT's number, the position in
semicircles, the timestamp in FIT seconds), "errors" and "integrity"}. Installed by
scripts/install-fit-peers into .cache/fit-peers.
"""
import json
import sys
import warnings

warnings.simplefilter("ignore")

from garmin_fit_sdk import Decoder, Stream  # noqa: E402


def read(path):
    stream = Stream.from_file(path)
    decoder = Decoder(stream)
    integrity = decoder.check_integrity()
    stream = Stream.from_file(path)
    messages, errors = Decoder(stream).read(
        convert_types_to_strings=False, convert_datetimes_to_dates=False, expand_components=True, merge_heart_rates=False)
    courses = messages.get("course_mesgs", [])
    course = None
    if courses:
        first = courses[0]
        course = {"name": first.get("name"), "sport": first.get("sport"), "capabilities": first.get("capabilities")}
    records = [r for r in messages.get("record_mesgs", []) if r.get("position_lat") is not None and r.get("position_long") is not None]
    points = [[p.get("type"), p.get("name"), p.get("distance"), p.get("position_lat"), p.get("position_long"), p.get("timestamp")]
              for p in messages.get("course_point_mesgs", [])]
    return {
        "file": path,
        "file_types": [m.get("type") for m in messages.get("file_id_mesgs", [])],
        "course": course,
        "records": len(records),
        "record_distances": [r.get("distance") for r in records],
        "course_points": points,
        "errors": [str(e) for e in errors],
        "integrity": bool(integrity),
    }


for path in sys.argv[1:]:
    try:
        print(json.dumps(read(path)))
    except Exception as error:  # a file the decoder cannot open at all: said, not fatal
        print(json.dumps({"file": path, "file_types": [], "course": None, "records": 0, "record_distances": [],
                          "course_points": [], "errors": [str(error)], "integrity": False}))
