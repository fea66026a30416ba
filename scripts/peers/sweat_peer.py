"""Training figures by sweat (PyPI), the peer our TrainingFigures is held to.

Reads one JSON object per line on standard input and writes one per line on standard output:

  {"name": ..., "ftp": W, "max_hr": bpm, "power": [[t, W], ...], "heart_rate": [[t, bpm], ...],
   "resample": true|false}  -- samples at times t (seconds); with "resample", sweat's own way to a
                               1 Hz series (sweat.io.utils.resample_data: the mean of each second,
                               gaps interpolated linearly), else the values are already one a second
  {"name": ..., "ftp": W, "max_hr": bpm, "fit": PATH}
                            -- sweat.read_fit(PATH, resample=True, interpolate=True) (fitparse)

Each answer has "seconds" (of power), "np" (sweat's weighted_average_power), "if"
(relative_intensity), "tss" (stress_score over those seconds), "power_zones" (seconds in each
of Coggan's seven, sweat's POWER_ZONES_THRESHOLD), "hr_seconds" and "hr_zones" (seconds in
five zones bounded at 60, 70, 80, 90 % of max_hr, as pd.cut counts: a value on a bound is in
the zone below), and "device" (a FIT session's normalized_power, training_stress_score,
intensity_factor, threshold_power, as fitparse reads them).

Run by Tests/TestSupport/SweatPeer.swift with the python scripts/install-sweat-peer prints.
"""
import json
import sys
import warnings

warnings.filterwarnings("ignore")

import numpy as np
import pandas as pd
import sweat
from sweat.io.utils import resample_data
from sweat.metrics import core, power as power_metrics


def series(pairs, resample):
    if not pairs:
        return None
    values = np.array([v for _, v in pairs], dtype=float)
    if not resample:
        return values
    index = pd.to_datetime([t for t, _ in pairs], unit="s")
    frame = pd.DataFrame({"value": values}, index=index)
    frame = frame[~frame.index.duplicated(keep="first")]
    return resample_data(frame, resample=True, interpolate=True)["value"].dropna().values


def zones(values, bounds):
    # sweat's compute_zones (pd.cut) labels each second with its zone, 1 upwards; counted here so
    # that a zone with no second counts 0 (sweat's time_in_zones leaves it out).
    labels = pd.Series(core.compute_zones(values, zones=list(bounds)))
    counts = labels.value_counts()
    return [float(counts.get(zone, 0)) for zone in range(1, len(bounds))]


def answer(case, watts, beats, device=None):
    ftp, max_hr = case.get("ftp"), case.get("max_hr")
    out = {"name": case.get("name"), "device": device}
    if watts is not None and len(watts):
        np_ = float(core.weighted_average_power(watts))
        out.update(seconds=len(watts), np=np_, work_kj=float(np.sum(watts)) / 1000)
        if ftp:
            intensity = float(power_metrics.relative_intensity(np_, ftp))
            out.update({"if": intensity, "tss": float(power_metrics.stress_score(np_, ftp, len(watts)))})
            out["power_zones"] = zones(watts, np.asarray(core.POWER_ZONES_THRESHOLD) * ftp)
    if beats is not None and len(beats) and max_hr:
        bounds = [-0.001] + [f * max_hr for f in (0.6, 0.7, 0.8, 0.9)] + [10.0 * max_hr]
        out.update(hr_seconds=len(beats), hr_zones=zones(beats, bounds))
    return out


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        if "fit" in case:
            data = sweat.read_fit(case["fit"], resample=True, interpolate=True, summaries=True)
            frame, sessions = data["data"], data["sessions"]
            device = None
            if len(sessions):
                row = sessions.iloc[0]
                device = {k: (None if pd.isna(row.get(k)) else float(row.get(k)))
                          for k in ("normalized_power", "training_stress_score", "intensity_factor", "threshold_power")
                          if k in row}
            watts = frame["power"].dropna().values if "power" in frame else None
            beats = frame["heartrate"].dropna().values if "heartrate" in frame else None
            print(json.dumps(answer(case, watts, beats, device)), flush=True)
        else:
            resample = case.get("resample", False)
            print(json.dumps(answer(case, series(case.get("power"), resample), series(case.get("heart_rate"), resample))), flush=True)


if __name__ == "__main__":
    main()
