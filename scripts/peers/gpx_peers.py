#!/usr/bin/env python3
"""What gpxpy reads in GPX files, as one JSON object per file on standard output, for the tests
that hold our GPX export to a reader we did not write.

    gpx_peers.py FILE...

For each file: {"file", "tracks": [{"segments": [POINTS...], "length_2d", "moving_time",
"heart_rates"}]} where each segment gives its point count, "length_2d" is gpxpy's length (metres,
haversine within segments), and "heart_rates" the TrackPointExtension hr of each point in order
(null where a point has none). Or {"file", "error"} when gpxpy cannot read it. Installed with the
FIT peers by scripts/install-fit-peers into .cache/fit-peers.
"""
import json
import sys


def heart_rate(point):
    for extension in point.extensions:
        for element in extension.iter():
            if element.tag.endswith("}hr") or element.tag == "hr":
                try:
                    return float(element.text)
                except (TypeError, ValueError):
                    return None
    return None


def main():
    import gpxpy
    for path in sys.argv[1:]:
        try:
            with open(path, encoding="utf-8") as handle:
                gpx = gpxpy.parse(handle)
        except Exception as error:  # what gpxpy says when it cannot read the file
            print(json.dumps({"file": path, "error": f"{type(error).__name__}: {error}"}), flush=True)
            continue
        tracks = []
        for track in gpx.tracks:
            moving = track.get_moving_data()
            tracks.append({
                "segments": [len(segment.points) for segment in track.segments],
                "length_2d": track.length_2d(),
                "moving_time": moving.moving_time if moving else None,
                "heart_rates": [heart_rate(point) for segment in track.segments for point in segment.points],
            })
        print(json.dumps({"file": path, "tracks": tracks}), flush=True)


if __name__ == "__main__":
    main()
