#!/usr/bin/python3
"""Region monitoring: (1) 1,000 regions (half circles of 50 to 500 m, half concave polygons of 50
vertices) spread over 20 km by 20 km, and 20,000 jittered 1 Hz fixes walked through them, given to
`RegionMonitor.process(_:)` one by one (`gpsbench regions`): the time per fix, mean and 99th
percentile, median of three runs; against every region's distance computed at every fix with no
index, same run (the floor of a monitor without one). (2) The resident memory (VmRSS) a monitor
watching 10,000 such regions adds to the process.

Targets (issue 28): 1,000 regions evaluated per fix in under 1 ms (a spatial index); the memory
of 10,000 regions is reported (the issue sets no bound).
"""
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BIN, row  # noqa: E402

RUNS = 3


def main():
    runs = []
    for _ in range(RUNS):
        result = subprocess.run([f"{BIN}/gpsbench", "regions"], capture_output=True, text=True, check=True)
        runs.append(json.loads(result.stdout))
    if len({run["events"] for run in runs}) != 1:
        raise RuntimeError(f"gpsbench regions is not deterministic: {[run['events'] for run in runs]} events")
    run = runs[0]
    mean = statistics.median(r["mean_seconds"] for r in runs)
    p99 = statistics.median(r["p99_seconds"] for r in runs)
    brute = statistics.median(r["brute_seconds"] for r in runs)
    row(f"RegionMonitor.process: {run['regions']:,} regions (circles, 50-vertex polygons), {run['fixes']:,} fixes "
        f"({run['events']:,} events)",
        f"{mean * 1e6:.1f} µs per fix (p99 {p99 * 1e6:.1f} µs)",
        f"every region's distance at every fix, no index: {brute * 1e6:.0f} µs per fix",
        f"{p99 * 1e3:.3f}x the target (p99)", "< 1 ms per fix", p99 < 1e-3)
    memory = statistics.median(r["memory_bytes"] for r in runs)
    row(f"RegionMonitor watching {run['memory_regions']:,} regions: resident memory added",
        f"{memory / 2**20:.1f} MiB ({memory / run['memory_regions'] / 1024:.1f} KiB per region)",
        "—", "—", "reported", None)


if __name__ == "__main__":
    main()
