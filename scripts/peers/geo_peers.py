#!/usr/bin/env python3
"""What shapely says of points and GeoJSON areas, for the tests that hold RegionMonitoring's
polygon containment to a library we did not write.

    geo_peers.py REQUEST.json

REQUEST is a list of cases, each {"areas": {NAME: GEOJSON, ...}, "points": [[lon, lat], ...]},
each GEOJSON a Polygon, MultiPolygon, Feature or FeatureCollection. Prints, for each case in
order, {NAME: [bool, ...]}: whether each point is inside the area (shapely.contains_xy on the
union of its polygons), in the order of the points. One process for every case: importing
shapely costs a fifth of a second. Installed by scripts/install-geo-peers into .cache/geo-peers.
"""
import json
import sys


def geometries(document):
    kind = document["type"]
    if kind == "FeatureCollection":
        for feature in document["features"]:
            yield from geometries(feature)
    elif kind == "Feature":
        if document.get("geometry") is not None:
            yield from geometries(document["geometry"])
    elif kind in ("Polygon", "MultiPolygon"):
        yield document


def main():
    import shapely
    from shapely.geometry import shape

    with open(sys.argv[1]) as file:
        cases = json.load(file)
    answers = []
    for case in cases:
        xs = [point[0] for point in case["points"]]
        ys = [point[1] for point in case["points"]]
        answer = {}
        for name, document in case["areas"].items():
            area = shapely.union_all([shape(geometry) for geometry in geometries(document)])
            answer[name] = [bool(inside) for inside in shapely.contains_xy(area, xs, ys)]
        answers.append(answer)
    json.dump(answers, sys.stdout)


if __name__ == "__main__":
    main()
