"""Shared pieces of the benchmark parts: inputs, the fake gpsd, measuring a process."""
import math
import os
import subprocess
import sys
import time

BENCH_DIR = os.environ.get("BENCH_DIR", ".bench")
BIN = os.environ.get("BIN_DIR", ".build/release")


def tpv_log(count):
    """A gpsd JSON log of `count` TPVs one second apart, shaped like gpsd 3.22's output (made once)."""
    path = os.path.join(BENCH_DIR, f"tpv-{count}.json")
    if os.path.exists(path):
        return path
    os.makedirs(BENCH_DIR, exist_ok=True)
    start = 1714557600
    with open(path + ".tmp", "w") as out:
        out.write('{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}\n')
        for i in range(count):
            t = start + i
            clock = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t))
            lat = 51.4779 + 0.0001 * math.sin(i / 600)
            lon = -0.0015 + 0.0001 * math.cos(i / 600)
            out.write(
                '{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"%s.000Z","ept":0.005,'
                '"lat":%.9f,"lon":%.9f,"altHAE":%.4f,"altMSL":%.4f,"alt":%.4f,"epx":3.214,"epy":4.101,'
                '"epv":7.250,"track":%.4f,"magtrack":%.4f,"magvar":-0.1,"speed":%.3f,"climb":0.012,'
                '"eps":0.81,"epc":1.45,"geoidSep":45.600,"eph":5.210,"sep":8.900}\n'
                % (clock, lat, lon, 75.6 + i % 10, 30.0 + i % 10, 30.0 + i % 10,
                   (i * 0.37) % 360, (i * 0.37) % 360, 1.2 + (i % 7) * 0.1))
    os.rename(path + ".tmp", path)
    return path


class FakeGPSD:
    """`locate replay LOG` on a free port, for the duration of a `with` block."""

    def __init__(self, log, fast=False, speed=1.0):
        self.command = [f"{BIN}/locate", "replay", log, "--port", "0"]
        self.command += ["--fast"] if fast else ["--speed", str(speed)]

    def __enter__(self):
        self.process = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.address = self.process.stdout.readline().strip()
        if not self.address:
            raise RuntimeError(f"{' '.join(self.command)} did not start")
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait()


def cpu_and_wall(command, stdout=subprocess.DEVNULL):
    """Runs `command` to completion; returns (user + system CPU seconds, wall seconds)."""
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=stdout, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    if status != 0:
        raise RuntimeError(f"{' '.join(command)} exited with {status}: {process.stderr.read()[-300:]!r}")
    return usage.ru_utime + usage.ru_stime, wall


def timed(command):
    """Runs `command` under /usr/bin/time; returns (wall seconds, peak RSS bytes, stdout text)."""
    result = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited with {result.returncode}: {result.stderr[-400:]!r}")
    wall, peak = result.stderr.strip().splitlines()[-1].split()
    return float(wall), int(peak) * 1024, result.stdout


def c_tool(name):
    """Compiles scripts/bench.d/c/NAME.c against libgps (once) and returns the binary's path."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "c", name + ".c")
    binary = os.path.join(BENCH_DIR, name)
    if not os.path.exists(binary) or os.path.getmtime(binary) < os.path.getmtime(source):
        subprocess.run(["gcc", "-O2", "-o", binary, source, "-lgps"], check=True)
    return binary


def row(benchmark, ours, peers, ratio, target, met):
    """One table row; `met` is None when the issue sets no target for it."""
    verdict = "—" if met is None else "yes" if met else "NO"
    print(f"| {benchmark} | {ours} | {peers} | {ratio} | {target} | {verdict} |", flush=True)


def big_gpx(points=500_000):
    """A GPX 1.1 file of one track of `points` trackpoints one second apart, each with ele, time and
    Garmin TrackPointExtension hr and cad, with Garmin Connect's `ns3:` prefix (about 123 MB for 500,000
    points; made once)."""
    path = os.path.join(BENCH_DIR, f"track-{points}.gpx")
    if os.path.exists(path):
        return path
    os.makedirs(BENCH_DIR, exist_ok=True)
    start = 1714557600
    with open(path + ".tmp", "w") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                  '<gpx creator="swift-gps-facade bench" version="1.1" xmlns="http://www.topografix.com/GPX/1/1" '
                  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
                  'xmlns:ns3="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" '
                  'xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">\n'
                  ' <metadata>\n  <time>2024-05-01T10:00:00Z</time>\n </metadata>\n'
                  ' <trk>\n  <name>Synthetic ride</name>\n  <type>cycling</type>\n <trkseg>\n')
        for i in range(points):
            clock = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(start + i))
            lat = 51.4779 + 0.002 * math.sin(i / 600) + i * 1e-6
            lon = -0.0015 + 0.002 * math.cos(i / 600)
            out.write(' <trkpt lat="%.6f" lon="%.6f">\n  <ele>%.1f</ele>\n  <time>%sZ</time>\n'
                      '  <extensions>\n   <ns3:TrackPointExtension>\n    <ns3:hr>%d</ns3:hr>\n'
                      '    <ns3:cad>%d</ns3:cad>\n   </ns3:TrackPointExtension>\n  </extensions>\n'
                      ' </trkpt>\n'
                      % (lat, lon, 75.6 + 20 * math.sin(i / 900), clock, 120 + i % 40, 80 + i % 15))
        out.write(' </trkseg>\n </trk>\n</gpx>\n')
    os.rename(path + ".tmp", path)
    return path


# A system-type D-Bus configuration for a private dbus-daemon in `folder` (GeoClue, the fake BlueZ).
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path={folder}/bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/>
<allow send_type="method_call"/><allow send_type="signal"/><allow send_type="method_return"/><allow send_type="error"/>
<allow receive_type="method_call"/><allow receive_type="signal"/><allow receive_type="method_return"/><allow receive_type="error"/>
</policy></busconfig>
"""


def peer_python(module, requirement):
    """A Python that imports `module`: the system one if it has it, else a venv of its own in
    BENCH_DIR with `requirement` installed (pip, made once)."""
    if subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0:
        return sys.executable
    venv = os.path.join(BENCH_DIR, f"{module}-venv")
    python = os.path.join(venv, "bin", "python3")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", requirement], check=True)
    return python

