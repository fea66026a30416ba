#!/usr/bin/env python3
"""What Garmin's FIT decoder (PyPI garmin-fit-sdk) and fitdecode read in FIT files, as one JSON
object per file on standard output, for the tests that compare our decoder with them.

    fit_peers.py FILE...

For each file: {"file", "garmin": {...}, "fitdecode": {...}}, each peer giving "records" as
[time, lat, lon, heart_rate, cadence, power, altitude, speed, temperature] (time in FIT seconds,
positions in semicircles, cadence with its fraction, the enhanced altitude and speed when given),
"laps" and "sessions" as [start, end, timer_time, distance, trigger_or_sport], "timer_events" as
[time, event_type, trigger], "file_types", "hrv" (every beat-to-beat interval of the hrv messages,
seconds, in order), "session_sports" ([sport, sub_sport] of each session), "record_distances"
(each record's distance, metres, or null), "session_developer" (the first session's developer fields as text: by number
for Garmin's, by the name their field_description gives for fitdecode), "start_developer" (the same of the first timer
start event), and what went wrong
("errors" for Garmin's, with its integrity check; "error" for fitdecode). Installed by
scripts/install-fit-peers into .cache/fit-peers.
"""
import json
import sys
import warnings

warnings.simplefilter("ignore")


def number(value):
    """A JSON number, or None: the first element of a list, None for text and the rest."""
    if isinstance(value, (list, tuple)):
        value = next((v for v in value if v is not None), None)
    if isinstance(value, bool):
        return int(value)
    return value if isinstance(value, (int, float)) else None


def record_row(get):
    cadence = get("cadence")
    if cadence is not None and get("fractional_cadence") is not None:
        cadence = cadence + get("fractional_cadence")
    altitude = get("enhanced_altitude")
    altitude = get("altitude") if altitude is None else altitude
    speed = get("enhanced_speed")
    speed = get("speed") if speed is None else speed
    return [number(v) for v in (get("timestamp"), get("position_lat"), get("position_long"), get("heart_rate"), cadence,
                                 get("power"), altitude, speed, get("temperature"))]


def totals_row(get, last):
    return [number(v) for v in (get("start_time"), get("timestamp"), get("total_timer_time"), get("total_distance"), get(last))]


def garmin(path):
    from garmin_fit_sdk import Decoder, Stream
    decoder = Decoder(Stream.from_file(path))
    out = {"is_fit": decoder.is_fit(), "integrity": decoder.check_integrity()}
    decoder = Decoder(Stream.from_file(path))
    messages, errors = decoder.read(convert_datetimes_to_dates=False, convert_types_to_strings=False, merge_heart_rates=False)
    out["errors"] = [str(error) for error in errors]
    out["records"] = [record_row(m.get) for m in messages.get("record_mesgs", [])]
    out["laps"] = [totals_row(m.get, "lap_trigger") for m in messages.get("lap_mesgs", [])]
    out["sessions"] = [totals_row(m.get, "sport") for m in messages.get("session_mesgs", [])]
    out["session_sports"] = [[number(m.get("sport")), number(m.get("sub_sport"))] for m in messages.get("session_mesgs", [])]
    out["record_distances"] = [number(m.get("distance")) for m in messages.get("record_mesgs", [])]
    out["timer_events"] = [[number(m.get("timestamp")), number(m.get("event_type")), number(m.get("timer_trigger", m.get("data")))]
                           for m in messages.get("event_mesgs", []) if m.get("event") == 0]
    out["file_types"] = [number(m.get("type")) for m in messages.get("file_id_mesgs", [])]
    out["hrv"] = [value for m in messages.get("hrv_mesgs", []) for value in (m.get("time") or []) if value is not None]
    sessions = messages.get("session_mesgs", [])
    out["session_developer"] = {str(key): str(value) for key, value in (sessions[0].get("developer_fields") or {}).items()} if sessions else {}
    starts = [m for m in messages.get("event_mesgs", []) if m.get("event") == 0 and m.get("event_type") == 0]
    out["start_developer"] = {str(key): str(value) for key, value in (starts[0].get("developer_fields") or {}).items()} if starts else {}
    return out


def fitdecode_read(path):
    import fitdecode
    out = {"records": [], "laps": [], "sessions": [], "timer_events": [], "file_types": [], "hrv": [], "session_developer": {},
           "start_developer": None, "session_sports": [], "record_distances": [], "error": None}
    try:
        with fitdecode.FitReader(path, check_crc=fitdecode.CrcCheck.RAISE) as reader:
            for frame in reader:
                if not isinstance(frame, fitdecode.FitDataMessage):
                    continue

                def get(name, frame=frame):
                    if not frame.has_field(name):
                        return None
                    value = frame.get_raw_value(name) if name in ("timestamp", "start_time", "sport", "sub_sport", "lap_trigger", "event", "event_type", "type", "timer_trigger") else frame.get_value(name)
                    return value
                if frame.name == "record":
                    out["records"].append(record_row(get))
                    out["record_distances"].append(number(get("distance")))
                elif frame.name == "lap":
                    out["laps"].append(totals_row(get, "lap_trigger"))
                elif frame.name == "session":
                    out["sessions"].append(totals_row(get, "sport"))
                    out["session_sports"].append([number(get("sport")), number(get("sub_sport"))])
                    if len(out["sessions"]) == 1:
                        out["session_developer"] = {field.name: str(field.value) for field in frame.fields
                                                    if type(field.field_def).__name__ == "DevFieldDefinition"}
                elif frame.name == "hrv":
                    values = frame.get_value("time", fallback=None) or []
                    out["hrv"] += [value for value in (values if isinstance(values, (list, tuple)) else [values]) if value is not None]
                elif frame.name == "event" and get("event") == 0:
                    out["timer_events"].append([number(get("timestamp")), number(get("event_type")), number(get("timer_trigger"))])
                    if out["start_developer"] is None and get("event_type") == 0:
                        out["start_developer"] = {field.name: str(field.value) for field in frame.fields
                                                  if type(field.field_def).__name__ == "DevFieldDefinition"}
                elif frame.name == "file_id":
                    out["file_types"].append(number(get("type")))
    except Exception as error:  # what fitdecode says when it stops
        out["error"] = f"{type(error).__name__}: {error}"
    out["start_developer"] = out["start_developer"] or {}
    return out


def main():
    for path in sys.argv[1:]:
        print(json.dumps({"file": path, "garmin": garmin(path), "fitdecode": fitdecode_read(path)}), flush=True)


if __name__ == "__main__":
    main()
