#!/usr/bin/env python3
"""An HTTP server for the tests of HTTPDestination and `locate publish --to http://...`.

Listens on 127.0.0.1 (a free port unless --port), prints `listening PORT` on standard output, then
one JSON line per request it receives: {"n", "method", "path", "query", "headers", "body", "status"}
(`status` is what it answered; -1 for a request it holds without answering). A test waits on these
lines instead of sleeping.

Answers: the statuses of --statuses in turn (`500,500,401`), then 200 for every request after them;
with --fail N, 500 for the first N requests. --hold N keeps the first N requests unanswered (the
connection stays open) for timeout and cancellation tests. --fail-until-released answers 500 until a
line arrives on standard input (a test releases it once the client has queued what it should); with
--hold-after-release N it then answers N requests and holds every one after them, so that what the
client has delivered stays put while the test looks.
--tls CERT KEY serves HTTPS.

--forward URL makes it a proxy in front of another server (a real FitTrackee): each request goes on
to URL as it came (method, path, query, headers, body) and the server's answer comes back, `status`
being the server's. With --hold-answer-to METHOD PATH the first such request is forwarded and its
answer kept from the client (`status` the server's, `held` true): the server has done the work and
the client never hears, the moment a crash leaves a client's upload in doubt.

HTTP/1.1 with keep-alive, as the OwnTracks Recorder and Traccar serve: a client may reuse its connection.
Python's standard library only (http.server), so it runs wherever python3 does.
"""

import argparse
import json
import ssl
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

arguments = argparse.ArgumentParser()
arguments.add_argument("--port", type=int, default=0)
arguments.add_argument("--statuses", default="")
arguments.add_argument("--fail", type=int, default=0)
arguments.add_argument("--hold", type=int, default=0)
arguments.add_argument("--fail-until-released", action="store_true")
arguments.add_argument("--hold-after-release", type=int, default=-1)
arguments.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
arguments.add_argument("--forward")
arguments.add_argument("--hold-answer-to", nargs=2, metavar=("METHOD", "PATH"))
options = arguments.parse_args()

statuses = [int(s) for s in options.statuses.split(",") if s] + [500] * options.fail
lock = threading.Lock()
count = 0
answered_after_release = 0
answer_held = False
never = threading.Event()
released = threading.Event()


def wait_for_release():
    sys.stdin.readline()
    released.set()


if options.fail_until_released:
    threading.Thread(target=wait_for_release, daemon=True).start()


def emit(record):
    with lock:
        sys.stdout.write(json.dumps(record, sort_keys=True) + "\n")
        sys.stdout.flush()


def forwarded(handler, body):
    """The forwarded server's answer to the request: (status, headers, body)."""
    request = urllib.request.Request(options.forward + handler.path, data=body if body else None, method=handler.command)
    for name, value in handler.headers.items():
        if name.lower() not in ("host", "content-length", "connection"):
            request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, answer.getheaders(), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.items(), error.read()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def forward(self, body):
        global count, answer_held
        with lock:
            count += 1
            n = count
            hold = options.hold_answer_to == [self.command, urlsplit(self.path).path] and not answer_held
            if hold:
                answer_held = True
        status, headers, answer = forwarded(self, body)
        parts = urlsplit(self.path)
        emit({
            "n": n, "method": self.command, "path": parts.path, "query": parts.query,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body.decode("utf-8", "replace"), "status": status, "held": hold,
        })
        if hold:
            never.wait()  # the server has answered; the client waits until it is killed
            return
        self.send_response(status)
        for name, value in headers:
            if name.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def do_POST(self):
        global count, answered_after_release
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length else b""
        if options.forward:
            return self.forward(body)
        with lock:
            count += 1
            n = count
            after_release = options.fail_until_released and released.is_set()
            if after_release:
                answered_after_release += 1
            held = n <= options.hold or (
                after_release and 0 <= options.hold_after_release < answered_after_release)
        if held:
            status = -1
        elif options.fail_until_released and not released.is_set():
            status = 500
        elif n - options.hold <= len(statuses):
            status = statuses[n - options.hold - 1]
        else:
            status = 200
        parts = urlsplit(self.path)
        emit({
            "n": n,
            "method": self.command,
            "path": parts.path,
            "query": parts.query,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body.decode("utf-8", "replace"),
            "status": status,
        })
        if held:
            never.wait()  # until the process ends: the client's timeout or cancellation decides
            return
        answer = b"" if 200 <= status < 300 else ("status %d from the test server\n" % status).encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    # A GET (the upload tests' first question to a server) is kept and answered the same way.
    do_GET = do_POST
    do_DELETE = do_POST

    def log_message(self, *args):
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # 5 by default: a burst of connections waited for SYN retries


server = Server(("127.0.0.1", options.port), Handler)
if options.tls:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(options.tls[0], options.tls[1])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print("listening %d" % server.server_address[1], flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
