#!/usr/bin/python3
"""Uploads to a real FitTrackee 1.3.6 on PostgreSQL (scripts/fittrackee-server, started here for
the bench alone): a 3-hour ride with heart rate and cadence (10,800 points) in each format, its
bytes and the CPU of `workout upload` (ours) beside the server's (FitTrackee's gunicorn workers and
PostgreSQL, read from /proc); then a queue of 100 half-hour walks drained by one `workout upload`,
its time and how much of it the server spent. FitTrackee's default largest file is 1 MiB, the whole
request's length: the ride's GPX and TCX are over it, so `--format gpx|tcx` is refused before
anything is sent, as the command says, and their rows give the bytes and the CPU of making them
(`workout export`), the part of an upload that is ours.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BENCH_DIR, BIN, big_gpx, cpu_and_wall, row  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SERVER = os.path.join(ROOT, "scripts", "fittrackee-server")
TICKS = os.sysconf("SC_CLK_TCK")


def read_env(path):
    values = {}
    with open(path) as file:
        for line in file:
            key, _, value = line.rstrip("\n").partition("=")
            values[key] = value
    return values


def stat(pid):
    """(pgid, ppid, CPU seconds of it and its reaped children) of process `pid`, or None."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            fields = file.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[2]), int(fields[1]), sum(int(f) for f in fields[11:15]) / TICKS


def server_cpu(api_pid, postmaster_pid):
    """FitTrackee's processes (the API's process group) and PostgreSQL's (the postmaster and its
    children), with what their ended children spent."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        info = stat(int(entry))
        if info and (info[0] == api_pid or int(entry) == postmaster_pid or info[1] == postmaster_pid):
            total += info[2]
    return total


def walks_gpx(path, count, points):
    """`count` walks of `points` seconds each, one a day, as the tracks of one GPX file."""
    start = 1714557600
    with open(path, "w") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx creator="swift-gps-facade bench" version="1.1" '
                  'xmlns="http://www.topografix.com/GPX/1/1">\n')
        for walk in range(count):
            out.write(f' <trk><name>Walk {walk + 1}</name><type>walking</type><trkseg>\n')
            for i in range(points):
                clock = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + walk * 86_400 + i))
                lat = 51.4779 + 0.0008 * math.sin(i / 300) + i * 4e-7
                lon = -0.0015 + 0.0008 * math.cos(i / 300)
                out.write(f'  <trkpt lat="{lat:.6f}" lon="{lon:.6f}"><ele>{40 + 5 * math.sin(i / 200):.1f}</ele><time>{clock}</time></trkpt>\n')
            out.write(' </trkseg></trk>\n')
        out.write('</gpx>\n')


def imported(store, path):
    result = subprocess.run([f"{BIN}/workout", "import", "--store", store, "--json", path], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"workout import {path}: {result.stderr[-300:]}")
    return [json.loads(line)["id"] for line in result.stdout.splitlines() if line.startswith("{") and '"id"' in line]


def main():
    os.makedirs(BENCH_DIR, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="fittrackee-bench.", dir="/tmp")  # under /tmp: postgres must reach it
    work = tempfile.mkdtemp(prefix="upload-", dir=BENCH_DIR)
    try:
        started = subprocess.run([SERVER, "start", folder], capture_output=True, text=True)
        if started.returncode != 0:
            raise RuntimeError(f"scripts/fittrackee-server start: {started.stderr[-600:]}")
        env = read_env(os.path.join(folder, "server.env"))
        destination = "fittrackee+http://" + env["FITTRACKEE_URL"].split("://", 1)[1]
        credentials = os.path.join(work, "credentials.json")
        with open(credentials, "w") as file:
            json.dump({"client_id": env["FITTRACKEE_CLIENT_ID"], "client_secret": env["FITTRACKEE_CLIENT_SECRET"],
                       "access_token": env["FITTRACKEE_ACCESS_TOKEN"], "refresh_token": env["FITTRACKEE_REFRESH_TOKEN"],
                       "expires_at": time.time() + float(env["FITTRACKEE_TOKEN_EXPIRES_IN"] or 3600)}, file)
        os.chmod(credentials, 0o600)
        api, postmaster = int(env["FITTRACKEE_API_PID"]), int(env["FITTRACKEE_POSTGRES_PID"])

        ride = big_gpx(10_800)
        for format in ("fit", "gpx", "tcx"):
            store = os.path.join(work, f"ride-{format}.sqlite")
            [ride_id] = imported(store, ride)
            exported = os.path.join(work, f"ride.{format}")
            export_cpu, _ = cpu_and_wall([f"{BIN}/workout", "export", ride_id, "--store", store, "--format", format, "--output", exported])
            size = os.path.getsize(exported)
            server_before = server_cpu(api, postmaster)
            began = time.monotonic()
            upload = subprocess.Popen([f"{BIN}/workout", "upload", ride_id, "--store", store, "--to", destination,
                                       "--credentials", credentials, "--format", format],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            _, status, usage = os.wait4(upload.pid, 0)
            wall = time.monotonic() - began
            ours = usage.ru_utime + usage.ru_stime
            server = server_cpu(api, postmaster) - server_before
            said = upload.stderr.read().strip().splitlines()
            if os.waitstatus_to_exitcode(status) == 0:
                row(f"workout upload: a 3-hour ride (10,800 points, heart rate, cadence) as {format.upper()} to a real FitTrackee 1.3.6",
                    f"{size / 1e6:.2f} MB; {ours * 1000:.0f} ms of CPU (the file made: {export_cpu * 1000:.0f} ms)",
                    f"FitTrackee and PostgreSQL: {server:.2f} s of CPU; {wall:.2f} s in all",
                    f"ours {ours / max(server, 1e-9):.2f}x the server's", "report", None)
            else:
                row(f"workout upload --format {format}: the same ride as {format.upper()}, over FitTrackee's 1 MiB largest file",
                    f"{size / 1e6:.2f} MB made in {export_cpu * 1000:.0f} ms of CPU; refused before sending ({ours * 1000:.0f} ms)",
                    (said[-1] if said else "")[:120], "—", "report", None)

        walks = os.path.join(work, "walks.gpx")
        walks_gpx(walks, 100, 1_800)
        store = os.path.join(work, "walks.sqlite")
        ids = imported(store, walks)
        if len(ids) != 100:
            raise RuntimeError(f"100 walks imported as {len(ids)} workouts")
        server_before = server_cpu(api, postmaster)
        began = time.monotonic()
        drain = subprocess.Popen([f"{BIN}/workout", "upload", *ids, "--store", store, "--to", destination, "--credentials", credentials],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _, status, usage = os.wait4(drain.pid, 0)
        wall = time.monotonic() - began
        server = server_cpu(api, postmaster) - server_before
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"draining 100 walks: exit {os.waitstatus_to_exitcode(status)}: {drain.stderr.read()[-400:]}")
        ours = usage.ru_utime + usage.ru_stime
        row("workout upload: a queue of 100 half-hour walks (GPX, 1,800 points each) drained into a real FitTrackee 1.3.6",
            f"{wall:.1f} s ({wall * 10:.0f} ms a workout); ours {ours:.2f} s of CPU",
            f"FitTrackee and PostgreSQL: {server:.1f} s of CPU (a core {server / wall * 100:.0f} % of the time)",
            f"the server's CPU {server / max(ours, 1e-9):.0f}x ours", "report", None)
    finally:
        subprocess.run([SERVER, "stop", folder], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
