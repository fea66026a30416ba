"""What the stand-ins (strava-standin.py, intervals-standin.py) share: reading a multipart/form-data
body (RFC 7578) with the standard library's email parser (cgi is gone from Python 3.13), JSON
answers, and serving on a loopback port, printed as `listening PORT` on the first line."""

import email.parser
import email.policy
import json
from http.server import ThreadingHTTPServer


def multipart(content_type, body):
    """{name: (filename or None, bytes)} of each part of `body`."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    parts = {}
    if not message.is_multipart():
        return parts
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name is not None:
            parts[name] = (part.get_filename(), part.get_payload(decode=True) or b"")
    return parts


def answer(handler, status, body, headers=()):
    """Answers `handler`'s request with `body` as JSON, and `headers`."""
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json; charset=utf-8")
    handler.send_header("Content-Length", str(len(data)))
    for name, value in headers:
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # 5 by default: a burst of connections waited for SYN retries


def serve(handler, port):
    """Serves `handler` on 127.0.0.1:`port` (0: a free one) until interrupted, the port printed first."""
    server = Server(("127.0.0.1", port), handler)
    print("listening %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
