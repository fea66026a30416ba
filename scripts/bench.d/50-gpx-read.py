#!/usr/bin/python3
"""GPX reading: a 500,000-point GPX 1.1 track (about 123 MB; ele, time, TrackPointExtension hr and
cad on every point) read from start to end.

Ours: `gpsbench gpx-read FILE`, GPXReader (libxml2 SAX2 push parser fed 256 KB chunks) plus
TrackStatistics (distance, elevation, times, heart rate), as the whole process. Peers, on the same
file in the same run: `xmllint --stream --noout` (libxml2's streaming reader doing nothing but
parse: the floor), gpxpy 1.6 parsing and computing length_2d (in a venv under BENCH_DIR), and
`gpsbabel -i gpx -f FILE -o unicsv -F /dev/null`. Wall time and peak RSS from /usr/bin/time;
median of three runs for ours and xmllint, one run for gpxpy and gpsbabel (they are slow).

Targets (issue 5): read + totals within 1.5x `xmllint --stream`; peak memory under 64 MB.
"""
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BENCH_DIR, BIN, big_gpx, peer_python, row, timed  # noqa: E402

RUNS = 3
GPXPY_SCRIPT = """import sys, gpxpy
with open(sys.argv[1]) as f:
    gpx = gpxpy.parse(f)
print(gpx.get_track_points_no(), gpx.length_2d())
"""


def median_run(command):
    runs = [timed(command) for _ in range(RUNS)]
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs), runs[-1][2]


def mib(size):
    return f"{size / 2**20:.1f} MiB"


def main():
    path = big_gpx()
    size = os.path.getsize(path)
    ours_wall, ours_peak, output = median_run([f"{BIN}/gpsbench", "gpx-read", path])
    ours = json.loads(output)
    xmllint_wall, xmllint_peak, _ = median_run(["xmllint", "--stream", "--noout", path])

    script = os.path.join(BENCH_DIR, "gpxpy-read.py")
    with open(script, "w") as out:
        out.write(GPXPY_SCRIPT)
    gpxpy_wall, gpxpy_peak, gpxpy_output = timed([peer_python("gpxpy", "gpxpy==1.6.2"), script, path])
    gpxpy_points, gpxpy_length = gpxpy_output.split()
    babel_wall, babel_peak, _ = timed(["gpsbabel", "-i", "gpx", "-f", path, "-o", "unicsv", "-F", "/dev/null"])

    # gpxpy's length_2d is its own approximation, about 0.1% longer than the haversine.
    if int(gpxpy_points) != ours["points"] or abs(float(gpxpy_length) - ours["distance"]) > 0.005 * ours["distance"]:
        raise RuntimeError(f"gpxpy read {gpxpy_points} points, {gpxpy_length} m; we read {ours}")

    points = ours["points"]
    ratio = ours_wall / xmllint_wall
    row(f"GPX read + totals: {points:,} points, {size / 1e6:.0f} MB, hr + cad extensions (time)",
        f"{ours_wall:.2f} s ({points / ours_wall:,.0f} points/s; {ours['distance'] / 1000:,.1f} km)",
        f"xmllint --stream: {xmllint_wall:.2f} s; gpxpy: {gpxpy_wall:.1f} s; gpsbabel → unicsv: {babel_wall:.2f} s",
        f"{ratio:.2f}x xmllint", "<= 1.5x xmllint --stream", ratio <= 1.5)
    row(f"GPX read + totals: peak memory on the {size / 1e6:.0f} MB file",
        mib(ours_peak),
        f"xmllint --stream: {mib(xmllint_peak)}; gpxpy: {mib(gpxpy_peak)}; gpsbabel: {mib(babel_peak)}",
        f"{ours_peak / xmllint_peak:.2f}x xmllint", "< 64 MB", ours_peak < 64 * 2**20)


if __name__ == "__main__":
    main()
