"""What the stand-ins (strava-standin.py, intervals-standin.py) share: reading a multipart/form-data
body (RFC 7578) with the standard library's email parser (cgi is gone from Python 3.13)."""

import email.parser
import email.policy


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
