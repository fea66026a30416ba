#!/usr/bin/python3
"""Workout store: saving runs through the HealthKit-style chain, and reading a route back.

Save: `gpsbench workout-store save` times save + addSamples + insertRouteData (in batches) +
finishRoute into a new store file (generating the run and opening the store are not timed), for
a 3-hour 1 Hz run (10,800 route points, 10,800 heart-rate samples; batches of 1,000) and a
1,000,000-point route (batches of 10,000). The floor is the sqlite3 shell inserting the same rows
(checked by checksum) into the same schema, same pragmas (WAL, synchronous=NORMAL, foreign keys)
and file system, in one transaction with `.import` (its fastest way in), timed as the whole
sqlite3 process. Rows per second count samples and points. Median of three runs each.

Read: `gpsbench workout-store read` reads the 1,000,000-point route through the batched
sequence (batches of 1,000): its time, and its peak memory (ru_maxrss of the process) against
the same read of the 10,800-point route, which shows whether memory stays flat.

Target (issue 4): saving within 2x the sqlite3 floor. Reading: no time target; memory flat
(here: the 1M-point read peaks at most 1.5x the 10,800-point read).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BENCH_DIR, BIN, row  # noqa: E402

RUNS = 3
GPSBENCH = f"{BIN}/gpsbench"
CASES = [
    # label, points, samples, batch
    ("3-hour 1 Hz run (10,800 points + 10,800 HR samples)", 10_800, 10_800, 1_000),
    ("1,000,000-point route", 1_000_000, 0, 10_000),
]
FLOOR_SCRIPT = """PRAGMA foreign_keys=ON;
PRAGMA synchronous=NORMAL;
BEGIN;
.read workout.sql
.import --csv samples.csv quantity_sample
.import --csv points.csv route_point
COMMIT;
"""
CHECKSUM = """SELECT (SELECT count(*) || ' ' || total(value) || ' ' || total(start_time) FROM quantity_sample)
    || ' | ' || (SELECT count(*) || ' ' || total(time) || ' ' || total(latitude) || ' ' || total(longitude) || ' '
    || total(altitude) || ' ' || total(altitude_hae) || ' ' || total(h_accuracy) || ' ' || total(v_accuracy) || ' '
    || total(speed) || ' ' || total(speed_accuracy) || ' ' || total(course) || ' ' || total(course_accuracy) || ' '
    || total(fix) || ' ' || total(ordinal) || ' ' || total(segment) FROM route_point);"""


def remove_store(path):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


def peak_rss(command, stdout=subprocess.DEVNULL):
    """Runs `command` to completion; returns (wall seconds, ru_maxrss in bytes, stdout text)."""
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=stdout, stderr=subprocess.PIPE)
    output = process.stdout.read() if stdout == subprocess.PIPE else b""
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    if status != 0:
        raise RuntimeError(f"{' '.join(command)} exited with {status}: {process.stderr.read()[-400:]!r}")
    return wall, usage.ru_maxrss * 1024, output.decode()


def checksum(path):
    return subprocess.run(["sqlite3", path, CHECKSUM], capture_output=True, text=True, check=True).stdout.strip()


def save_case(label, points, samples, batch):
    folder = os.path.join(BENCH_DIR, f"workout-store-{points}")
    os.makedirs(folder, exist_ok=True)
    ours_path = os.path.join(folder, "ours.sqlite")
    template = os.path.join(folder, "empty.sqlite")
    floor_path = os.path.join(folder, "floor.sqlite")

    remove_store(template)
    subprocess.run([GPSBENCH, "workout-store", "rows", "--store", template, "--points", str(points),
                    "--samples", str(samples), "--folder", folder], check=True)
    with open(os.path.join(folder, "floor.sqlite3"), "w") as script:
        script.write(FLOOR_SCRIPT)

    ours, floor = [], []
    for _ in range(RUNS):
        remove_store(ours_path)
        _, _, output = peak_rss([GPSBENCH, "workout-store", "save", "--store", ours_path, "--points", str(points),
                                 "--samples", str(samples), "--batch", str(batch)], stdout=subprocess.PIPE)
        ours.append(json.loads(output)["seconds"])

        remove_store(floor_path)
        shutil.copyfile(template, floor_path)
        started = time.monotonic()
        with open(os.path.join(folder, "floor.sqlite3")) as script:
            subprocess.run(["sqlite3", "floor.sqlite"], stdin=script, cwd=folder, check=True)
        floor.append(time.monotonic() - started)

    if checksum(ours_path) != checksum(floor_path):
        raise RuntimeError(f"{label}: our store and the sqlite3 floor hold different rows:\n"
                           f"{checksum(ours_path)}\n{checksum(floor_path)}")
    rows = points + samples
    ours_rate = rows / statistics.median(ours)
    floor_rate = rows / statistics.median(floor)
    ratio = floor_rate / ours_rate
    row(f"workout store: save {label} via the chain, batches of {batch:,} (rows/s)",
        f"{ours_rate:,.0f} rows/s", f"sqlite3 .import, one transaction: {floor_rate:,.0f} rows/s",
        f"{ratio:.2f}x floor time", "<= 2x floor", ratio <= 2)
    remove_store(floor_path)
    for name in ("points.csv", "samples.csv"):
        os.remove(os.path.join(folder, name))
    return ours_path


def read_case(small_store, large_store):
    def read(path):
        walls, peaks, seconds = [], [], []
        for _ in range(RUNS):
            _, peak, output = peak_rss([GPSBENCH, "workout-store", "read", "--store", path, "--batch", "1000"],
                                       stdout=subprocess.PIPE)
            result = json.loads(output)
            seconds.append(result["seconds"])
            peaks.append(peak)
        return statistics.median(seconds), max(peaks), result["points"]

    large_seconds, large_peak, large_points = read(large_store)
    _, small_peak, small_points = read(small_store)
    select = ["sqlite3", large_store, "SELECT * FROM route_point WHERE route = 1 ORDER BY ordinal"]
    select_wall = statistics.median(peak_rss(select)[0] for _ in range(RUNS))
    row(f"workout store: read back the {large_points:,}-point route, batches of 1,000 (time)",
        f"{large_seconds:.2f} s ({large_points / large_seconds:,.0f} points/s)",
        f"sqlite3 SELECT of the same rows to /dev/null: {select_wall:.2f} s",
        f"{large_seconds / select_wall:.2f}x sqlite3", "none set", None)
    growth = large_peak / small_peak
    row(f"workout store: peak memory reading the {large_points:,}-point route",
        f"{large_peak / 2**20:.1f} MiB", f"same read of the {small_points:,}-point route: {small_peak / 2**20:.1f} MiB",
        f"{growth:.2f}x", "flat: <= 1.5x", growth <= 1.5)


def main():
    stores = [save_case(*case) for case in CASES]
    read_case(stores[0], stores[1])


if __name__ == "__main__":
    main()
