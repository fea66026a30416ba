#!/usr/bin/python3
"""FIT import: a FIT activity of 500,000 records (made by our exporter from 50-gpx-read's 500,000-point
GPX, imported into a store: position, altitude, distance, speed, heart rate and cadence in each
record, about 17 MB), read and imported.

Ours: `gpsbench fit-read FILE` (FITReader, every record through FITRecord, totals with
TrackStatistics) and `workout import --json FILE` into a new store (500,000 points and 1,000,000
samples through the route builder, one transaction at the end), median of three runs each. Peers on
the same file in the same run: fitdecode 0.11 counting records and heart rates (in the venv of
scripts/install-fit-peers), `gpsbabel -i garmin_fit -o unicsv` to /dev/null, and `xmllint --stream
--noout` on the equivalent GPX (the file the FIT was made from: the floor of reading the same
points as XML). Peak memory: the same runs on a 50,000-record file made the same way (flat: the
500,000-record file's peak within 1.25x of it). Export: `workout export --format fit` of the same
workout (median of three; encoded once, into a temporary file, the header written when the data's
size is known) against its GPX export.
Wall time and peak RSS from /usr/bin/time.

Targets: the FIT import within 2x the time `xmllint --stream` takes on the equivalent GPX, in flat
memory (issue 18); the FIT export at most the time of the GPX export of the same workout (issue 24:
a binary format a third the size should not be slower).
"""
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BENCH_DIR, BIN, big_gpx, row, timed  # noqa: E402

RUNS = 3
FITDECODE_SCRIPT = """import sys, fitdecode
records = heart_rates = 0
with fitdecode.FitReader(sys.argv[1], check_crc=fitdecode.CrcCheck.RAISE) as reader:
    for frame in reader:
        if isinstance(frame, fitdecode.FitDataMessage) and frame.name == "record":
            records += 1
            if frame.get_value("heart_rate", fallback=None) is not None:
                heart_rates += 1
print(records, heart_rates)
"""


def fresh_store(name):
    path = os.path.join(BENCH_DIR, name)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return path


def median_run(command, before=None):
    runs = []
    for _ in range(RUNS):
        if before:
            before()
        runs.append(timed(command))
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs), runs[-1][2]


def mib(size):
    return f"{size / 2**20:.1f} MiB"


def made_fit(points):
    """The GPX of `points` points imported, and exported as FIT by our exporter: made again on every
    run (a few seconds), never reused, so the file measured is what the exporter built now writes."""
    gpx = big_gpx(points)
    store = fresh_store(f"fit-source-{points}.sqlite")
    imported = json.loads(timed([f"{BIN}/workout", "import", "--store", store, "--json", gpx])[2].splitlines()[0])
    path = os.path.join(BENCH_DIR, f"track-{points}.fit")
    timed([f"{BIN}/workout", "export", "--store", store, imported["id"], "--format", "fit", "-o", path])
    return gpx, path, store, imported["id"]


def main():
    peers_python = subprocess.run(["scripts/install-fit-peers"], capture_output=True, text=True, check=True).stdout.strip()
    script = os.path.join(BENCH_DIR, "fitdecode-read.py")
    with open(script, "w") as out:
        out.write(FITDECODE_SCRIPT)

    small_gpx, small_fit, _, _ = made_fit(50_000)
    gpx, fit, source_store, source_id = made_fit(500_000)
    size = os.path.getsize(fit)

    read_wall, read_peak, output = median_run([f"{BIN}/gpsbench", "fit-read", fit])
    ours = json.loads(output)
    store = os.path.join(BENCH_DIR, "fit-import.sqlite")
    import_wall, import_peak, imported = median_run(
        [f"{BIN}/workout", "import", "--store", store, "--json", fit], before=lambda: fresh_store("fit-import.sqlite"))
    summary = json.loads(imported.splitlines()[0])
    xmllint_wall, xmllint_peak, _ = median_run(["xmllint", "--stream", "--noout", gpx])
    fitdecode_wall, fitdecode_peak, fitdecode_output = timed([peers_python, script, fit])
    babel_wall, babel_peak, _ = timed(["gpsbabel", "-i", "garmin_fit", "-f", fit, "-o", "unicsv", "-F", "/dev/null"])
    _, small_read_peak, _ = timed([f"{BIN}/gpsbench", "fit-read", small_fit])
    _, small_import_peak, _ = timed([f"{BIN}/workout", "import", "--store", fresh_store("fit-import-small.sqlite"), small_fit])

    records, heart_rates = (int(x) for x in fitdecode_output.split())
    if records != ours["records"] or heart_rates != ours["hr_count"] or summary["points"] != ours["points"] or summary["status"] != "imported":
        raise RuntimeError(f"fitdecode read {records} records ({heart_rates} heart rates); we read {ours}, imported {summary}")

    ratio = read_wall / xmllint_wall
    peers = (f"xmllint --stream (GPX, {os.path.getsize(gpx) / 1e6:.0f} MB): {xmllint_wall:.2f} s; fitdecode: {fitdecode_wall:.1f} s; "
             f"gpsbabel → unicsv: {babel_wall:.2f} s")
    row(f"FIT read + totals: {records:,} records, {size / 1e6:.0f} MB (time)",
        f"{read_wall:.2f} s ({records / read_wall:,.0f} records/s)", peers, f"{ratio:.2f}x xmllint", "<= 2x xmllint --stream", ratio <= 2)
    ratio = import_wall / xmllint_wall
    rows = summary["points"] + summary["samples"]
    row(f"FIT import into the store: {summary['points']:,} points + {summary['samples']:,} samples (time)",
        f"{import_wall:.2f} s ({rows / import_wall:,.0f} rows/s)", peers, f"{ratio:.2f}x xmllint",
        "<= 2x xmllint --stream on the GPX", ratio <= 2)
    flat = max(read_peak / small_read_peak, import_peak / small_import_peak)
    row("FIT read and import: peak memory, 500,000 records against 50,000",
        f"read {mib(read_peak)} (50,000: {mib(small_read_peak)}); import {mib(import_peak)} (50,000: {mib(small_import_peak)})",
        f"fitdecode: {mib(fitdecode_peak)}; gpsbabel: {mib(babel_peak)}; xmllint --stream: {mib(xmllint_peak)}",
        f"{flat:.2f}x", "flat (<= 1.25x the 50,000-record file's)", flat <= 1.25)

    export = os.path.join(BENCH_DIR, "fit-export.fit")
    export_wall, export_peak, _ = median_run([f"{BIN}/workout", "export", "--store", source_store, source_id, "--format", "fit", "-o", export])
    gpx_export_wall, _, _ = timed([f"{BIN}/workout", "export", "--store", source_store, source_id, "--format", "gpx", "-o",
                                   os.path.join(BENCH_DIR, "fit-export.gpx")])
    row(f"FIT export of the same workout: {summary['points']:,} points + {summary['samples']:,} samples (time)",
        f"{export_wall:.2f} s ({mib(export_peak)} peak)", f"its GPX export: {gpx_export_wall:.2f} s",
        f"{export_wall / gpx_export_wall:.2f}x GPX export", "<= its GPX export", export_wall <= gpx_export_wall)


if __name__ == "__main__":
    main()
