#!/usr/bin/env python3
"""What Python's json module says of texts, for the tests that hold the package's strict JSON
scanner (GPSCore's JSONScan, which GeoJSON reading goes through) to a parser we did not write.

    json_peer.py REQUEST.json

REQUEST is a JSON list of texts, each as the hex of its bytes (so that bytes which are not UTF-8
can be asked about). Prints one line, a JSON list with, for each text in order, [accepted, message]:
whether json.loads took it (decoded as UTF-8 first, strictly, as a file read with
encoding="utf-8" is), and the exception's message when it did not. Standard library only.
"""
import json
import sys


def verdict(data):
    try:
        json.loads(data.decode("utf-8"))
        return [True, ""]
    except (ValueError, RecursionError) as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return [False, f"{type(error).__name__}: {error}"]


def main():
    with open(sys.argv[1], encoding="utf-8") as request:
        texts = [bytes.fromhex(text) for text in json.load(request)]
    print(json.dumps([verdict(text) for text in texts]))


if __name__ == "__main__":
    main()
