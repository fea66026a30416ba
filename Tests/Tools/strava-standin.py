#!/usr/bin/env python3
"""A local stand-in for Strava's API v3, for the tests of StravaDestination: it keeps the published
contract (each field and status below names the page that documents it) and fails as a test asks.

Listens on 127.0.0.1 (a free port unless --port) and prints `listening PORT` on the first line of
standard output. Python's standard library only (http.server), so it runs wherever python3 does.

Pages (read 2026):
  AUTH    https://developers.strava.com/docs/authentication/
  UPLOADS https://developers.strava.com/docs/uploads/ (and https://strava.github.io/api/v3/uploads/)
  REF     https://developers.strava.com/docs/reference/ (createUpload, getUploadById, Upload)
  LIMITS  https://developers.strava.com/docs/rate-limits/

What it models:
- GET /oauth/authorize [AUTH "Requesting Access"]: client_id, redirect_uri, response_type=code,
  approval_prompt, scope (comma-separated), state. Strava shows the athlete a page; the stand-in is
  the athlete who allows (--deny: who refuses) and answers at once with the redirect Strava sends:
  302 to redirect_uri with state, code and scope (the scopes accepted, comma-separated, `read`
  among them), or with error=access_denied. An unknown client_id is 400 naming the client.
- POST /oauth/token, grant_type=authorization_code [AUTH "Token Exchange"]: client_id,
  client_secret, code (good once) -> token_type, expires_at, expires_in, refresh_token,
  access_token and a summary athlete; a code it did not give is 400 naming the code.
- POST /oauth/token, grant_type=refresh_token [AUTH]: a new access token and a new refresh token
  (the refresh token rotates: the one traded is refused from then on, 400 with Strava's "Bad
  Request" body naming RefreshToken), with expires_at (epoch seconds) and expires_in (6 hours).
- Bearer access tokens [AUTH]; one expired (or never given) is refused 401 with Strava's
  "Authorization Error" body naming the Athlete's access_token.
- POST /api/v3/uploads [REF createUpload]: multipart file, data_type, external_id, name, trainer;
  201 with an Upload {id, id_str, external_id, error, status, activity_id}. Processing is
  asynchronous [UPLOADS]: GET /api/v3/uploads/{id} [REF getUploadById] answers "Your activity is
  still being processed." for --polls polls, then "Your activity is ready." with activity_id, or
  "There was an error processing your activity." with error "NAME duplicate of activity N" for a
  file it has (the same bytes, or the same external_id) [UPLOADS: errors "may be due to ...
  duplicate data submission"].
- Rate limits [LIMITS]: every API request counts in X-RateLimit-Usage (15 minutes, daily) against
  X-RateLimit-Limit; the requests other than POST uploads also in X-ReadRateLimit-*; a request
  over either limit is answered 429 (and still counts). The headers come with every answer.

The test's controls (not Strava's: under /_standin/, counted in no limit):
- GET /_standin/state: {"activities": [...], "uploads": N, "upload_requests": N, "api_requests": N,
  "refreshes": N, "refresh_token": current, "access_token": current}
- POST /_standin/faults, JSON: {"fail": [503, ...]} answers the next API requests with those
  statuses before doing anything; {"drop_after_keeping": N} keeps the next N uploads and closes the
  connection without an answer (the answer lost); {"expire_access_token": true} makes the current
  access token expired (401); {"limit": "200,2000", "read_limit": "100,1000"} sets the limits.
"""

import argparse
import hashlib
import json
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlencode, urlsplit

from standin_common import answer, multipart, serve

arguments = argparse.ArgumentParser()
arguments.add_argument("--port", type=int, default=0)
arguments.add_argument("--client-id", default="12345")
arguments.add_argument("--client-secret", default="stand-in-secret")
arguments.add_argument("--access-token", default="initial-access-token")
arguments.add_argument("--refresh-token", default="initial-refresh-token")
arguments.add_argument("--polls", type=int, default=2, help="polls before an upload is processed")
arguments.add_argument("--limit", default="200,2000", help="X-RateLimit-Limit: 15 minutes, daily")
arguments.add_argument("--read-limit", default="100,1000", help="X-ReadRateLimit-Limit")
arguments.add_argument("--deny", action="store_true", help="the athlete refuses at the authorization page")
options = arguments.parse_args()

lock = threading.Lock()


def pair(text):
    short, daily = text.split(",")
    return [int(short), int(daily)]


state = {
    "access_token": options.access_token,
    "access_expired": False,
    "refresh_token": options.refresh_token,
    "refreshes": 0,
    "limit": pair(options.limit),
    "read_limit": pair(options.read_limit),
    "usage": [0, 0],
    "read_usage": [0, 0],
    "fail": [],
    "drop_after_keeping": 0,
    "uploads": {},  # id -> upload record
    "activities": [],  # {"id", "external_id", "sha256", "name", "trainer", "upload_id"}
    "upload_requests": 0,
    "api_requests": 0,
    "codes": set(),  # authorization codes given and not yet traded
}
next_upload = [16000000001]
next_activity = [12000000001]


def bad_request_refresh_token():
    # [AUTH] a refresh token Strava does not hold: 400 Bad Request, its errors naming the field.
    return 400, {"message": "Bad Request", "errors": [{"resource": "RefreshToken", "field": "refresh_token", "code": "invalid"}]}


def authorization_error():
    # [AUTH] an expired or unknown access token: 401, "Authorization Error" on the Athlete's access_token.
    return 401, {"message": "Authorization Error", "errors": [{"resource": "Athlete", "field": "access_token", "code": "invalid"}]}


def upload_json(upload):
    # [REF Upload]: id (long), id_str, external_id, error, status, activity_id.
    return {
        "id": upload["id"], "id_str": str(upload["id"]), "external_id": upload["external_id"],
        "error": upload["error"], "status": upload["status"], "activity_id": upload["activity_id"],
    }


def process(upload):
    """One poll of an upload (under the lock): still processing, or done at the --polls-th."""
    if upload["activity_id"] is not None or upload["error"] is not None:
        return
    upload["polls"] += 1
    if upload["polls"] < options.polls:
        return
    for activity in state["activities"]:
        if activity["sha256"] == upload["sha256"] or (upload["external_id"] and activity["external_id"] == upload["external_id"]):
            # [UPLOADS] an error during processing, for duplicate data.
            upload["error"] = "%s duplicate of activity %d" % (upload["filename"], activity["id"])
            upload["status"] = "There was an error processing your activity."
            return
    if not upload["data"]:
        upload["error"] = "Improperly formatted data."
        upload["status"] = "There was an error processing your activity."
        return
    activity = {
        "id": next_activity[0], "external_id": upload["external_id"], "sha256": upload["sha256"],
        "name": upload["name"], "trainer": upload["trainer"], "data_type": upload["data_type"], "upload_id": upload["id"],
    }
    next_activity[0] += 1
    state["activities"].append(activity)
    upload["activity_id"] = activity["id"]
    upload["status"] = "Your activity is ready."


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, status, body, headers=()):
        answer(self, status, body, headers)

    def body(self):
        length = int(self.headers.get("Content-Length", "0"))
        return self.rfile.read(length) if length else b""

    def do_GET(self):
        self.handle_request("GET")

    def do_POST(self):
        self.handle_request("POST")

    def handle_request(self, method):
        parts = urlsplit(self.path)
        body = self.body()
        if parts.path.startswith("/_standin/"):
            return self.control(method, parts.path, body)
        if method == "GET" and parts.path == "/oauth/authorize":
            return self.authorize(parts.query)
        if method == "POST" and parts.path == "/oauth/token":
            return self.token(body)
        if parts.path.startswith("/api/v3/"):
            return self.api(method, parts.path, body)
        self.answer(404, {"message": "Record Not Found", "errors": [{"resource": "resource", "field": "path", "code": "invalid"}]})

    def control(self, method, path, body):
        with lock:
            if method == "POST" and path == "/_standin/faults":
                faults = json.loads(body or b"{}")
                state["fail"] += faults.get("fail", [])
                state["drop_after_keeping"] += faults.get("drop_after_keeping", 0)
                if faults.get("expire_access_token"):
                    state["access_expired"] = True
                if "limit" in faults:
                    state["limit"] = pair(faults["limit"])
                if "read_limit" in faults:
                    state["read_limit"] = pair(faults["read_limit"])
            snapshot = {
                "activities": [{k: v for k, v in a.items() if k != "sha256"} for a in state["activities"]],
                "uploads": len(state["uploads"]), "upload_requests": state["upload_requests"],
                "api_requests": state["api_requests"], "refreshes": state["refreshes"],
                "refresh_token": state["refresh_token"], "access_token": state["access_token"],
            }
        self.answer(200, snapshot)

    def authorize(self, query):
        fields = {k: v[0] for k, v in parse_qs(query).items()}
        if fields.get("client_id") != options.client_id or fields.get("response_type") != "code" or not fields.get("redirect_uri"):
            return self.answer(400, {"message": "Bad Request", "errors": [{"resource": "Application", "field": "client_id", "code": "invalid"}]})
        back = {"state": fields.get("state", "")}
        if options.deny:
            back["error"] = "access_denied"  # [AUTH] the athlete clicked Cancel
        else:
            code = "code-" + secrets.token_hex(8)
            with lock:
                state["codes"].add(code)
            # [AUTH] "scope: the scopes accepted by the athlete, comma separated", read among them.
            back["code"], back["scope"] = code, ",".join(["read"] + [s for s in fields.get("scope", "").split(",") if s and s != "read"])
        location = fields["redirect_uri"] + ("&" if "?" in fields["redirect_uri"] else "?") + urlencode(back)
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def token(self, body):
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        with lock:
            if form.get("client_id") != options.client_id or form.get("client_secret") != options.client_secret:
                # [AUTH] an application Strava does not know: 400 naming the client.
                status, answer = 400, {"message": "Bad Request", "errors": [{"resource": "Application", "field": "client_id", "code": "invalid"}]}
            elif form.get("grant_type") == "authorization_code":
                if form.get("code") not in state["codes"]:
                    status, answer = 400, {"message": "Bad Request", "errors": [{"resource": "AuthorizationCode", "field": "code", "code": "invalid"}]}
                else:
                    state["codes"].discard(form["code"])  # [AUTH] a code is good once
                    state["access_token"] = "access-" + secrets.token_hex(8)
                    state["refresh_token"] = "refresh-" + secrets.token_hex(8)
                    state["access_expired"] = False
                    expires_in = 21600
                    status, answer = 200, {
                        "token_type": "Bearer", "expires_at": int(time.time()) + expires_in, "expires_in": expires_in,
                        "refresh_token": state["refresh_token"], "access_token": state["access_token"],
                        "athlete": {"id": 134815, "resource_state": 2, "firstname": "Stand", "lastname": "In"},
                    }
            elif form.get("grant_type") != "refresh_token" or form.get("refresh_token") != state["refresh_token"]:
                status, answer = bad_request_refresh_token()
            else:
                # [AUTH] "Refresh tokens ... the most recent refresh token must be used": a new pair,
                # the old refresh token refused from now on.
                state["access_token"] = "access-" + secrets.token_hex(8)
                state["refresh_token"] = "refresh-" + secrets.token_hex(8)
                state["access_expired"] = False
                state["refreshes"] += 1
                expires_in = 21600  # [AUTH] access tokens expire six hours after they are created
                status, answer = 200, {
                    "token_type": "Bearer", "access_token": state["access_token"], "expires_at": int(time.time()) + expires_in,
                    "expires_in": expires_in, "refresh_token": state["refresh_token"],
                }
        self.answer(status, answer)

    def api(self, method, path, body):
        upload_request = method == "POST" and path == "/api/v3/uploads"
        with lock:
            state["api_requests"] += 1
            if upload_request:
                state["upload_requests"] += 1
            # [LIMITS] every request counts, a refused one too; POST uploads is not a "non-upload" (read) request.
            state["usage"] = [u + 1 for u in state["usage"]]
            if not upload_request:
                state["read_usage"] = [u + 1 for u in state["read_usage"]]
            headers = [
                ("X-RateLimit-Limit", "%d,%d" % tuple(state["limit"])), ("X-RateLimit-Usage", "%d,%d" % tuple(state["usage"])),
                ("X-ReadRateLimit-Limit", "%d,%d" % tuple(state["read_limit"])),
                ("X-ReadRateLimit-Usage", "%d,%d" % tuple(state["read_usage"])),
            ]
            over = any(u > l for u, l in zip(state["usage"], state["limit"]))
            if not upload_request:
                over = over or any(u > l for u, l in zip(state["read_usage"], state["read_limit"]))
            token = self.headers.get("Authorization", "")
            authorized = token == "Bearer " + state["access_token"] and not state["access_expired"]
            fail = state["fail"].pop(0) if state["fail"] and not over else None
        if over:
            # [LIMITS] 429 Too Many Requests with a JSON error message.
            return self.answer(429, {"message": "Rate Limit Exceeded", "errors": [{"resource": "Application", "field": "rate limit", "code": "exceeded"}]}, headers)
        if fail is not None:
            return self.answer(fail, {"message": "Internal Server Error (stand-in fault)"}, headers)
        if not authorized:
            status, answer = authorization_error()
            return self.answer(status, answer, headers)
        if upload_request:
            return self.create_upload(body, headers)
        if method == "GET" and path.startswith("/api/v3/uploads/"):
            with lock:
                upload = state["uploads"].get(path.rsplit("/", 1)[1])
                if upload is not None:
                    process(upload)
                    answer = upload_json(upload)
            if upload is None:
                return self.answer(404, {"message": "Record Not Found", "errors": [{"resource": "Upload", "field": "id", "code": "invalid"}]}, headers)
            return self.answer(200, answer, headers)
        self.answer(404, {"message": "Record Not Found", "errors": [{"resource": "resource", "field": "path", "code": "invalid"}]}, headers)

    def create_upload(self, body, headers):
        form = multipart(self.headers.get("Content-Type", ""), body)
        field = lambda name: form[name][1].decode("utf-8", "replace") if name in form else None
        data_type = field("data_type")
        # [REF createUpload] data_type: fit, fit.gz, tcx, tcx.gz, gpx, gpx.gz.
        if "file" not in form or data_type not in ("fit", "fit.gz", "tcx", "tcx.gz", "gpx", "gpx.gz"):
            return self.answer(400, {"message": "Bad Request", "errors": [{"resource": "Upload", "field": "data_type" if "file" in form else "file", "code": "invalid"}]}, headers)
        filename, data = form["file"]
        with lock:
            upload = {
                "id": next_upload[0], "external_id": field("external_id") or filename, "filename": filename,
                "name": field("name"), "trainer": field("trainer"), "data_type": data_type,
                "sha256": hashlib.sha256(data).hexdigest(), "data": bool(data),
                "error": None, "status": "Your activity is still being processed.", "activity_id": None, "polls": 0,
            }
            next_upload[0] += 1
            state["uploads"][str(upload["id"])] = upload
            drop = state["drop_after_keeping"] > 0
            if drop:
                state["drop_after_keeping"] -= 1
            answer = upload_json(upload)
        if drop:
            # The upload is kept; the answer is lost (the connection closes before a byte of it).
            self.close_connection = True
            return
        self.answer(201, answer, headers)  # [REF createUpload] 201 Created, an Upload

    def log_message(self, *args):
        pass


serve(Handler, options.port)
