#!/usr/bin/python3
"""GPX import: the same 500,000-point track as 50-gpx-read, imported into a new store file with
`workout import --json` (one workout: 500,000 route points and 1,000,000 heart-rate and cadence
samples, through the route builder, committed in one transaction), against reading it alone
(`gpsbench gpx-read`: parse + totals, no store) in the same run. Median of three runs each, a
fresh store file per import. Wall time and peak RSS from /usr/bin/time.

Target (issue 5): a full import within 2x of the read alone.
"""
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BENCH_DIR, BIN, big_gpx, row, timed  # noqa: E402

RUNS = 3


def fresh_store():
    path = os.path.join(BENCH_DIR, "import-bench.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return path


def main():
    path = big_gpx()
    size = os.path.getsize(path)
    reads, imports = [], []
    for _ in range(RUNS):
        reads.append(timed([f"{BIN}/gpsbench", "gpx-read", path]))
        store = fresh_store()
        imports.append(timed([f"{BIN}/workout", "import", "--store", store, "--json", path]))
    read_wall = statistics.median(r[0] for r in reads)
    import_wall = statistics.median(r[0] for r in imports)
    import_peak = max(r[1] for r in imports)
    summary = json.loads(imports[-1][2].splitlines()[0])
    if summary["points"] != json.loads(reads[-1][2])["points"] or summary["status"] != "imported":
        raise RuntimeError(f"the import did not keep every point: {summary}")
    rows = summary["points"] + summary["samples"]
    ratio = import_wall / read_wall
    row(f"GPX import into the store: {summary['points']:,} points + {summary['samples']:,} samples, {size / 1e6:.0f} MB (time)",
        f"{import_wall:.2f} s ({rows / import_wall:,.0f} rows/s)",
        f"read alone (gpsbench gpx-read): {read_wall:.2f} s",
        f"{ratio:.2f}x read", "<= 2x the read alone", ratio <= 2)
    row(f"GPX import: peak memory on the {size / 1e6:.0f} MB file",
        f"{import_peak / 2**20:.1f} MiB", f"read alone: {max(r[1] for r in reads) / 2**20:.1f} MiB",
        "—", "none set (reader < 64 MB)", None)


if __name__ == "__main__":
    main()
