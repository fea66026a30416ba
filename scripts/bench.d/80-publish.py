#!/usr/bin/python3
"""Publishing positions to MQTT at QoS 1 through the durable outbox, against mosquitto_pub.

A private mosquitto (its own config, a free loopback port, no persistence) takes the messages.

CPU per position: `gpsbench publish live` publishes 2,000 OwnTracks positions one at a time
through a LocationPublisher with a file outbox (each appended and committed, handed to the sender,
sent, acknowledged by the broker's PUBACK; its removal committed with the next one's append) and
the process's user + system CPU is divided by 2,000, with the outbox at synchronous=NORMAL (the
default) and at FULL (each commit synced). The floor is `mosquitto_pub -l -q 1` sending 2,000
lines of the same payload (which keeps nothing on disk), its whole process's CPU divided the same
way. The commit alone: `gpsbench publish fill` appending 2,000 positions, each its own
transaction, at each durability. paho-mqtt: a Python client publishing the same 2,000 payloads at
QoS 1, each acknowledged (wait_for_publish) before the next, as a live position is.

Latency: in the same `live` run, from the position's append to the outbox to the PUBACK (the
broker has it), p50 and p99.

Drain: `gpsbench publish drain` fills an outbox with 10,000 positions (not timed), then times
until the broker acknowledged them all; its whole process's CPU, divided by 10,000, is the cost
of a position appended (its own commit, as a live one), sent and removed when the publisher need
not wait between two (a backlog).

Memory: `locate publish` (the command, as installed) draining an outbox that `gpsbench publish
fill` left with 1,000 and then 10,000 positions (the default capacity is 10,080), its peak RSS.

mosquitto_pub -l keeps up to 20 messages in flight, and so does the publisher with a backlog: it
reads up to 20 queued positions at once, publishes them together, and removes the acknowledged
ones in one commit. On the 2-core shared machine (2026-11-27), drain CPU 254-294 µs a position and
2.7-3.3 s with one message at a time and a commit each; 73-101 µs and 0.48-0.72 s batched.

A live position is one at a time by design (each appended, then acknowledged before the next is
made), so batching cannot help it. It cost 271-365 µs with two commits, a read of the outbox, a
wake of the sender task and one of the MQTT thread to write the packet; most of it was SQLite
compiling statements again (GRDB's read() sets PRAGMA query_only, which expires every prepared
statement). Now 79-95 µs (load 9-11 on 2 cores): one commit (the append, carrying the previous
removal), no read, the packet written by the sender itself. The commit alone is 28-35 µs at NORMAL
(65 µs at FULL, plus the sync's wait), already 3x mosquitto_pub's 8-10 µs: a durable outbox with a
commit per position cannot meet the 3x target on this machine; what is left above the commit is
the MQTT round trip and three thread wakes (sender, PUBACK, the bench's own wait).

Targets (issue 27): CPU at most 3x mosquitto_pub -l; p99 under 5 ms; 10,000 queued drained
under 5 s.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import BENCH_DIR, BIN, row, timed, tpv_log  # noqa: E402

GPSBENCH = f"{BIN}/gpsbench"
LOCATE_PUBLISH = f"{BIN}/locate-publish"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COUNT = 2_000
DRAIN = 10_000
# Queues `locate publish` drains for the memory row: small, and the default outbox's capacity
# (10,080) nearly full.
QUEUES = (1_000, 10_000)
# paho-mqtt publishing COUNT payloads at QoS 1, each acknowledged before the next (as a live
# position is), from its network thread (loop_start), as a Python tracker would.
PAHO = """
import sys
import paho.mqtt.client as mqtt
port, count, payload = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-paho")
client.connect("127.0.0.1", port)
client.loop_start()
for _ in range(count):
    client.publish("bench/paho", payload, qos=1).wait_for_publish()
client.disconnect()
client.loop_stop()
"""
PAYLOAD = ('{"_type":"location","lat":51.4778,"lon":-0.0014,"tst":1700000000,"acc":5,"alt":46,"vac":8,'
           '"vel":25,"cog":90,"t":"t","tid":"pu","created_at":1800000000}')


def measured(command):
    """Runs `command` to completion; returns (user + system CPU seconds, stdout text)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise RuntimeError(f"{' '.join(command)} exited with {status}: {process.stderr.read()[-300:]!r}")
    return usage.ru_utime + usage.ru_stime, output


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Broker:
    def __enter__(self):
        self.folder = tempfile.mkdtemp(dir=BENCH_DIR)
        self.port = free_port()
        config = os.path.join(self.folder, "mosquitto.conf")
        with open(config, "w") as out:
            out.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 0\n"
                      "log_dest stderr\nlog_type error\nlog_type information\n")
        self.process = subprocess.Popen(["/usr/sbin/mosquitto", "-c", config], stderr=subprocess.PIPE, text=True)
        for line in self.process.stderr:
            if " running" in line:
                break
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def main():
    os.makedirs(BENCH_DIR, exist_ok=True)
    outbox = os.path.join(BENCH_DIR, "publish-outbox.sqlite")
    lines = os.path.join(BENCH_DIR, "publish-lines.txt")
    with open(lines, "w") as out:
        out.write((PAYLOAD + "\n") * COUNT)
    with Broker() as broker:
        results = {}
        for durability in ("normal", "full"):
            command = [GPSBENCH, "publish", "live", "--port", str(broker.port), "--count", str(COUNT), "--outbox", outbox]
            if durability == "full":
                command.append("--full")
            cpu, output = measured(command)
            results[durability] = (cpu / COUNT, json.loads(output))
        with open(lines) as source:
            started = subprocess.Popen(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", "bench/floor",
                                        "-q", "1", "-l"], stdin=source, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            _, status, usage = os.wait4(started.pid, 0)
        if status != 0:
            raise RuntimeError(f"mosquitto_pub exited with {status}")
        floor = (usage.ru_utime + usage.ru_stime) / COUNT
        drain_cpu, output = measured(
            [GPSBENCH, "publish", "drain", "--port", str(broker.port), "--count", str(DRAIN), "--outbox", outbox])
        drain = json.loads(output)
        # The outbox's commit alone: COUNT appends, each its own transaction, at each durability.
        commit = {}
        for durability in ("normal", "full"):
            command = [GPSBENCH, "publish", "fill", "--destination", "mqtt://bench", "--count", str(COUNT), "--outbox", outbox]
            cpu, _ = measured(command + (["--full"] if durability == "full" else []))
            commit[durability] = cpu / COUNT
        python = os.environ.get("MQTT_PEERS_PYTHON") or subprocess.run(
            [os.path.join(ROOT, "scripts/install-mqtt-peers")], capture_output=True, text=True, check=True).stdout.strip()
        paho_cpu, _ = measured([python, "-c", PAHO, str(broker.port), str(COUNT), PAYLOAD])
        paho = paho_cpu / COUNT
        # Memory: locate publish draining a queue left by an outage (filled by gpsbench, not
        # measured), with a two-fix replay as its source; its peak RSS, small queue against large.
        log = tpv_log(2)
        peaks = {}
        for queued in QUEUES:
            destination = f"mqtt://127.0.0.1:{broker.port}"
            measured([GPSBENCH, "publish", "fill", "--destination", destination, "--count", str(queued), "--outbox", outbox])
            _, peak, output = timed([LOCATE_PUBLISH, "--simulate", log, "--speed", "100", "--to", destination,
                                     "--user", "bench", "--device", "pub", "--outbox", outbox, "--drain-timeout", "60",
                                     "--json"])
            report = json.loads(output.strip().splitlines()[-1])
            if report["pending"] != 0:
                raise RuntimeError(f"locate publish left {report['pending']} of {queued} queued")
            peaks[queued] = peak

    normal_cpu, live = results["normal"]
    full_cpu, _ = results["full"]
    ratio = normal_cpu / floor
    row(f"publish: CPU per position, MQTT QoS 1 with the outbox's commit ({COUNT:,} live, one at a time)",
        f"{normal_cpu * 1e6:,.0f} µs (synchronous=FULL: {full_cpu * 1e6:,.0f} µs; the commit alone: "
        f"NORMAL {commit['normal'] * 1e6:,.0f} µs, FULL {commit['full'] * 1e6:,.0f} µs; appending and draining "
        f"{DRAIN:,}: {drain_cpu / DRAIN * 1e6:,.0f} µs)",
        f"mosquitto_pub -l -q 1, nothing on disk: {floor * 1e6:,.0f} µs",
        f"{ratio:.2f}x", "<= 3x", ratio <= 3)
    # Issue 35's floor of a durable publish: one commit of the row plus mosquitto_pub's cost, both
    # measured above in this run; the live position (with its acknowledgement written down in the
    # journal) at most 1.5 times that.
    durable_floor = commit["normal"] + floor
    row(f"publish: CPU per live position against the floor of a durable publish (one commit + mosquitto_pub)",
        f"{normal_cpu * 1e6:,.0f} µs", f"commit {commit['normal'] * 1e6:,.0f} µs + mosquitto_pub {floor * 1e6:,.0f} µs "
        f"= {durable_floor * 1e6:,.0f} µs", f"{normal_cpu / durable_floor:.2f}x", "<= 1.5x", normal_cpu / durable_floor <= 1.5)
    row(f"publish: CPU per position against paho-mqtt ({COUNT:,} at QoS 1, each acknowledged before the next)",
        f"{normal_cpu * 1e6:,.0f} µs, outbox committed",
        f"paho-mqtt 2.1 (Python), nothing on disk: {paho * 1e6:,.0f} µs",
        f"{normal_cpu / paho:.2f}x", "—", None)
    row("publish: position appended to the outbox → broker's PUBACK, loopback",
        f"p50 {live['p50_ms']:.2f} ms, p99 {live['p99_ms']:.2f} ms", "—", "—", "p99 < 5 ms", live["p99_ms"] < 5)
    row(f"publish: drain {DRAIN:,} queued positions over MQTT",
        f"{drain['seconds']:.2f} s ({DRAIN / drain['seconds']:,.0f}/s), {drain['left']} left", "—", "—",
        "< 5 s", drain["seconds"] < 5 and drain["left"] == 0)
    small, large = QUEUES
    growth = peaks[large] / peaks[small]
    row(f"publish: memory flat in the outbox's size (locate publish draining {small:,} vs {large:,} queued)",
        f"peak RSS {peaks[small] / 2**20:.1f} MB vs {peaks[large] / 2**20:.1f} MB", "—", f"{growth:.2f}x",
        "~1x", growth < 1.25)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(outbox + suffix):
            os.remove(outbox + suffix)
    os.remove(lines)


if __name__ == "__main__":
    main()
