#!/usr/bin/python3
"""Following a course (`gpsbench navigate`): (1) a winding 200 km course of 20,000 points (a turn
every 2 km, a 6 % climb every 20 km) ridden at 8 m/s with 5 m of jitter, a fix a second, given to
`Navigator.update(with:)` one by one: the time per fix, mean and 99th percentile, median of three
runs; against, in the same run, the nearest point of the whole line at each fix (ours with no
window, and shapely 2.1's `LineString.project` on the same points: the floor of a matcher that
searches the whole course). (2) A 1,000 km course of 100,000 points read from GPX
(`CourseFile.read`: parse, distances, cues, climbs) against gpxpy 1.6 parsing the same file and
computing its length; the resident memory the course holds, per point.

Targets (issue 36): under 10 µs per fix, mean, on this machine; the memory per course point and
the 1,000 km load are reported (the issue sets no bound).
"""
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BENCH_DIR, BIN, peer_python, row  # noqa: E402

RUNS = 3
FOLDER = os.path.join(BENCH_DIR, "navigate")
SHAPELY_SCRIPT = """import sys, time
from shapely.geometry import LineString, Point
def read(path):
    with open(path) as f:
        return [tuple(map(float, line.split(","))) for line in f if line.strip()]
line = LineString(read(sys.argv[1]))
points = [Point(p) for p in read(sys.argv[2])[::10]]
started = time.perf_counter()
total = sum(line.project(p) for p in points)
print((time.perf_counter() - started) / len(points), total)
"""
GPXPY_SCRIPT = """import sys, time, gpxpy
started = time.perf_counter()
with open(sys.argv[1]) as f:
    gpx = gpxpy.parse(f)
length = gpx.length_2d()
print(time.perf_counter() - started, gpx.get_track_points_no(), length)
"""


def main():
    runs = []
    for _ in range(RUNS):
        result = subprocess.run([f"{BIN}/gpsbench", "navigate", "--folder", FOLDER], capture_output=True, text=True, check=True)
        runs.append(json.loads(result.stdout))
    if len({(run["events"], run["finished"]) for run in runs}) != 1 or not runs[0]["finished"]:
        raise RuntimeError(f"gpsbench navigate is not deterministic or did not finish: {runs}")
    run = runs[0]
    mean = statistics.median(r["mean_seconds"] for r in runs)
    p99 = statistics.median(r["p99_seconds"] for r in runs)
    brute = statistics.median(r["brute_seconds"] for r in runs)
    shapely = subprocess.run(
        [peer_python("shapely", "shapely==2.1.2"), "-c", SHAPELY_SCRIPT,
         os.path.join(FOLDER, "course-200km.csv"), os.path.join(FOLDER, "fixes-200km.csv")],
        capture_output=True, text=True, check=True)
    shapely_seconds = float(shapely.stdout.split()[0])
    row(f"Navigator.update: {run['length'] / 1000:.0f} km course of {run['points']:,} points "
        f"({run['cues']} cues, {run['climbs']} climbs), {run['fixes']:,} fixes ({run['events']:,} events)",
        f"{mean * 1e6:.2f} µs per fix (p99 {p99 * 1e6:.2f} µs)",
        f"nearest point of the whole line: ours {brute * 1e6:.0f} µs, shapely project {shapely_seconds * 1e6:.0f} µs per fix",
        f"{mean / 10e-6:.2f}x the target (mean)", "< 10 µs per fix (mean)", mean < 10e-6)

    load = statistics.median(r["load_seconds"] for r in runs)
    memory = statistics.median(r["memory_bytes"] for r in runs)
    gpxpy = subprocess.run([peer_python("gpxpy", "gpxpy==1.6.2"), "-c", GPXPY_SCRIPT, run["long_file"]],
                           capture_output=True, text=True, check=True)
    gpxpy_seconds = float(gpxpy.stdout.split()[0])
    row(f"CourseFile.read: {run['long_length'] / 1000:.0f} km GPX course of {run['long_points']:,} points "
        f"({run['long_cues']} cues, {run['long_climbs']} climbs)",
        f"{load:.3f} s, {memory / 2**20:.1f} MiB resident ({memory / run['long_points']:.0f} B per point)",
        f"gpxpy parse and length: {gpxpy_seconds:.3f} s",
        f"{load / gpxpy_seconds:.2f}x gpxpy", "reported", None)


if __name__ == "__main__":
    main()
