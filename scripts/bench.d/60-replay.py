#!/usr/bin/python3
"""Replay: (1) a day of 1 Hz fixes (86,400) from the in-process replay device through
`LocationManager.updates(buffering: .all)` on a VirtualClock (`gpsbench replay-day`): the time
from creating the device to the last fix consumed, and the process's peak RSS; median of three
runs. (2) `locate replay LOG --speed 1000` of the same day as a gpsd JSON log, read by
`gpspipe -w` for its first 20,000 fixes: fixes per second delivered, against the pace asked for
(1,000 fixes/s) and against `locate replay --fast` (as fast as gpspipe reads), same run.

(3) `locate replay TRACK.gpx --fast` of a 200,000-point GPX (55 MB) and of its first 20,000
points, read whole by `gpspipe -w`: the time from starting the command to its listening (the
address printed), and the replay's peak RSS after it has served every point.

Targets (issue 6): the day through updates() in under 1 second; --speed 1000 keeps its pace.
(Issue 12): listening within a second, and memory flat whatever the length (the 200,000-point
file's peak RSS within 1.25x the 20,000-point file's; it was 373 MB and 22 s before listening).
"""
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BIN, FakeGPSD, big_gpx, row, tpv_log  # noqa: E402

DAY = 86_400
SLICE = 20_000
RUNS = 3


def replay_day():
    runs = []
    for _ in range(RUNS):
        result = subprocess.run([f"{BIN}/gpsbench", "replay-day", "--fixes", str(DAY)],
                                capture_output=True, text=True, check=True)
        runs.append(json.loads(result.stdout))
    for run in runs:
        if run["delivered"] != DAY:
            raise RuntimeError(f"replay-day delivered {run['delivered']} of {DAY} fixes")
    if len({run["checksum"] for run in runs}) != 1:
        raise RuntimeError(f"replay-day is not deterministic: {[run['checksum'] for run in runs]}")
    return statistics.median(run["seconds"] for run in runs), max(run["peak_rss"] for run in runs)


def gpspipe_rate(log, **server_options):
    """Fixes per second gpspipe receives for the first SLICE fixes of `log`."""
    with FakeGPSD(log, **server_options) as server:
        started = time.monotonic()
        # gpspipe counts every line: VERSION, DEVICES and WATCH come first.
        result = subprocess.run(["gpspipe", "-w", "-n", str(SLICE + 3), server.address],
                                capture_output=True, text=True, check=True)
        wall = time.monotonic() - started
    fixes = sum(1 for line in result.stdout.splitlines() if '"class":"TPV"' in line)
    if fixes < SLICE - 1:
        raise RuntimeError(f"gpspipe received {fixes} of {SLICE} fixes")
    return fixes / wall


def peak_rss(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM")


def serve_gpx(points):
    """(seconds to listen, peak RSS bytes, fixes gpspipe received) for `locate replay --fast` of a
    `points`-point GPX read whole by gpspipe."""
    path = big_gpx(points)
    started = time.monotonic()
    with FakeGPSD(path, fast=True) as server:
        listening = time.monotonic() - started
        result = subprocess.run(["gpspipe", "-w", "-n", str(points + 3), server.address],
                                capture_output=True, text=True, check=True, timeout=600)
        peak = peak_rss(server.process.pid)
    fixes = sum(1 for line in result.stdout.splitlines() if '"class":"TPV"' in line)
    if fixes < points:
        raise RuntimeError(f"gpspipe received {fixes} of {points} fixes")
    return listening, peak, fixes


def main():
    seconds, peak = replay_day()
    row(f"Replay device: {DAY:,} fixes (24 h at 1 Hz) through LocationManager.updates() on a virtual clock",
        f"{seconds:.3f} s ({DAY / seconds:,.0f} fixes/s), peak RSS {peak / 2**20:.1f} MiB",
        "—", f"{seconds:.2f}x the target", "< 1 s", seconds < 1)
    log = tpv_log(DAY)
    paced = gpspipe_rate(log, speed=1000)
    fast = gpspipe_rate(log, fast=True)
    row(f"locate replay --speed 1000 of the day's log into gpspipe -w ({SLICE:,} fixes)",
        f"{paced:,.0f} fixes/s", f"asked: 1,000 fixes/s; locate replay --fast: {fast:,.0f} fixes/s",
        f"{paced / 1000:.3f}x the pace", "keeps the pace (>= 0.95x)", paced >= 950)
    small_listen, small_peak, _ = serve_gpx(20_000)
    listen, peak, fixes = serve_gpx(200_000)
    size = os.path.getsize(big_gpx(200_000)) / 1e6
    row(f"locate replay --fast of a {fixes:,}-point GPX ({size:.0f} MB) into gpspipe -w: time to listen, peak RSS",
        f"listening after {listen:.3f} s, peak RSS {peak / 2**20:.1f} MiB",
        f"the first 20,000 points: listening after {small_listen:.3f} s, peak RSS {small_peak / 2**20:.1f} MiB",
        f"{peak / small_peak:.2f}x the memory for 10x the points", "listens < 1 s; memory flat (<= 1.25x)",
        listen < 1 and peak <= 1.25 * small_peak)


if __name__ == "__main__":
    main()
