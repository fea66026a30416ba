#!/usr/bin/env python3
"""A local stand-in for intervals.icu's API, for the tests of IntervalsDestination: it keeps the
published contract (each field and status below names the page that documents it) and fails as a
test asks.

Listens on 127.0.0.1 (a free port unless --port) and prints `listening PORT` on the first line of
standard output. Python's standard library only (http.server), so it runs wherever python3 does.

Pages (read 2026):
  DOCS   https://intervals.icu/api-docs.html (the API's reference: uploadActivity, listActivities)
  FORUM  https://forum.intervals.icu/t/api-access-to-intervals-icu/609 (David's posts on the API)

What it models:
- Authentication [FORUM]: HTTP Basic with the user "API_KEY" and the athlete's key as the
  password, or "Authorization: Bearer TOKEN" (OAuth); else 401. Athlete id 0 in a path is the
  athlete the credentials are for [DOCS].
- POST /api/v1/athlete/0/activities [DOCS uploadActivity, FORUM]: multipart/form-data with the
  file in "file" (.fit, .gpx, .fit.gz, .gpx.gz or a zip [FORUM]); name, description,
  external_id as query parameters [DOCS] (or, for name and description, form fields [FORUM]).
  It "won't create duplicate activities (hash of file data is checked)" [FORUM]: a file it has is
  answered with the activity it made of it. The answer: {"icu_athlete_id", "id", "activities":
  [{"icu_athlete_id", "id"}]} [DOCS UploadResponse]. The statuses are not documented: 201 for a
  new activity, 200 for the one it had, here (a client takes any 2xx).
- GET /api/v1/athlete/0/activities?oldest=YYYY-MM-DD&newest=YYYY-MM-DD [DOCS listActivities]: the
  activities starting on those days (inclusive), newest first, each with id, name, start_date
  (UTC, ISO 8601 with Z), start_date_local, external_id, type.
- The start of an uploaded FIT activity is read from its first record's timestamp (a stand-in for
  intervals.icu's own reading of the file).

The test's controls (not intervals.icu's: under /_standin/):
- GET /_standin/state: {"activities": [...], "upload_requests": N, "requests": N}
- POST /_standin/faults, JSON: {"fail": [503, ...]} answers the next API requests with those
  statuses before doing anything; {"drop_after_keeping": N} keeps the next N uploads and closes the
  connection without an answer (the answer lost).
"""

import argparse
import base64
import datetime
import hashlib
import json
import struct
import threading
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from standin_common import answer, multipart, serve

arguments = argparse.ArgumentParser()
arguments.add_argument("--port", type=int, default=0)
arguments.add_argument("--athlete", default="i123456")
arguments.add_argument("--api-key", default="stand-in-api-key")
arguments.add_argument("--bearer", default="stand-in-oauth-token")
options = arguments.parse_args()

lock = threading.Lock()
state = {"activities": [], "upload_requests": 0, "requests": 0, "fail": [], "drop_after_keeping": 0}
next_activity = [9000001]
FIT_EPOCH = 631065600  # 1989-12-31T00:00:00Z, FIT's time zero


def fit_start(data):
    """Unix seconds of the first `record` message's timestamp (field 253) of a FIT file, or None."""
    try:
        header = data[0]
        end = header + struct.unpack_from("<I", data, 4)[0]
        at = header
        definitions = {}
        while at < end:
            byte = data[at]
            at += 1
            if byte & 0x80:  # compressed timestamp header: a data message of local type bits 5-6
                local = (byte >> 5) & 3
            elif byte & 0x40:  # a definition
                local = byte & 0x0F
                big = data[at + 1] == 1
                number = struct.unpack_from(">H" if big else "<H", data, at + 2)[0]
                count = data[at + 4]
                fields = [(data[at + 5 + 3 * i], data[at + 6 + 3 * i]) for i in range(count)]
                at += 5 + 3 * count
                developer = 0
                if byte & 0x20:
                    developer_count = data[at]
                    developer = sum(data[at + 2 + 3 * i] for i in range(developer_count))
                    at += 1 + 3 * developer_count
                definitions[local] = (number, big, fields, developer)
                continue
            else:
                local = byte & 0x0F
            number, big, fields, developer = definitions[local]
            offset = at
            for field, size in fields:
                if number == 20 and field == 253 and size == 4:
                    return FIT_EPOCH + struct.unpack_from(">I" if big else "<I", data, offset)[0]
                offset += size
            at = offset + developer
    except (IndexError, KeyError, struct.error):
        pass
    return None


def iso(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, status, body, headers=()):
        answer(self, status, body, headers)

    def do_GET(self):
        self.handle_request("GET")

    def do_POST(self):
        self.handle_request("POST")

    def authorized(self):
        given = self.headers.get("Authorization", "")
        basic = "Basic " + base64.b64encode(("API_KEY:" + options.api_key).encode()).decode()
        return given in (basic, "Bearer " + options.bearer)

    def handle_request(self, method):
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length else b""
        if parts.path.startswith("/_standin/"):
            return self.control(method, parts.path, body)
        upload = method == "POST" and parts.path == "/api/v1/athlete/0/activities"
        with lock:
            state["requests"] += 1
            if upload:
                state["upload_requests"] += 1
            fail = state["fail"].pop(0) if state["fail"] else None
        if fail is not None:
            return self.answer(fail, {"status": fail, "error": "stand-in fault"})
        if not self.authorized():
            # [FORUM] a wrong key: 401 (the body is not documented; intervals.icu's errors read like this).
            return self.answer(401, {"status": 401, "error": "Unauthorized"})
        if upload:
            return self.upload(query, body)
        if method == "GET" and parts.path == "/api/v1/athlete/0/activities":
            return self.list(query)
        self.answer(404, {"status": 404, "error": "Not Found"})

    def control(self, method, path, body):
        with lock:
            if method == "POST" and path == "/_standin/faults":
                faults = json.loads(body or b"{}")
                state["fail"] += faults.get("fail", [])
                state["drop_after_keeping"] += faults.get("drop_after_keeping", 0)
            snapshot = {
                "activities": [{k: v for k, v in a.items() if k != "sha256"} for a in state["activities"]],
                "upload_requests": state["upload_requests"], "requests": state["requests"],
            }
        self.answer(200, snapshot)

    def upload(self, query, body):
        form = multipart(self.headers.get("Content-Type", ""), body)
        if "file" not in form:
            return self.answer(422, {"status": 422, "error": "Missing file"})
        filename, data = form["file"]
        start = fit_start(data)
        if start is None:
            return self.answer(422, {"status": 422, "error": "Unable to read %s" % filename})
        text = lambda name: query.get(name) or (form[name][1].decode() if name in form else None)
        digest = hashlib.sha256(data).hexdigest()
        with lock:
            existing = next((a for a in state["activities"] if a["sha256"] == digest), None)
            if existing is None:
                activity = {
                    "id": "i%d" % next_activity[0], "icu_athlete_id": options.athlete, "name": text("name") or filename,
                    "description": text("description"), "external_id": query.get("external_id"),
                    "start_date": iso(start), "start_date_local": iso(start)[:-1], "type": "Run", "sha256": digest,
                }
                next_activity[0] += 1
                state["activities"].append(activity)
            else:
                activity = existing
            drop = state["drop_after_keeping"] > 0
            if drop:
                state["drop_after_keeping"] -= 1
        if drop:
            self.close_connection = True  # kept; the answer lost
            return
        answer = {"icu_athlete_id": options.athlete, "id": activity["id"],
                  "activities": [{"icu_athlete_id": options.athlete, "id": activity["id"]}]}
        self.answer(201 if existing is None else 200, answer)

    def list(self, query):
        try:
            oldest = datetime.date.fromisoformat(query["oldest"])
            newest = datetime.date.fromisoformat(query.get("newest", query["oldest"]))
        except (KeyError, ValueError):
            return self.answer(422, {"status": 422, "error": "oldest is required (YYYY-MM-DD)"})
        with lock:
            found = [
                {k: v for k, v in a.items() if k != "sha256"} for a in state["activities"]
                if oldest <= datetime.date.fromisoformat(a["start_date_local"][:10]) <= newest
            ]
        found.sort(key=lambda a: a["start_date"], reverse=True)
        self.answer(200, found)

    def log_message(self, *args):
        pass


serve(Handler, options.port)
