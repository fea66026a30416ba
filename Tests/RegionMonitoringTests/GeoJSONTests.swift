import Foundation
import RegionMonitoring
import Testing

@Suite("GeoJSON areas and paths, and errors that say where")
struct GeoJSONTests {
    func area(_ text: String) throws(GeoJSONError) -> PolygonalRegion {
        try GeoJSON.polygonalRegion(data: Array(text.utf8), name: "test.geojson")
    }

    func invalid(_ text: String) -> (path: String, reason: String)? {
        do {
            _ = try area(text)
            return nil
        } catch {
            guard case let .invalid(file, path, reason) = error, file == "test.geojson" else { return nil }
            return (path, reason)
        }
    }

    @Test("Polygon, MultiPolygon, Feature and FeatureCollection, with a hole")
    func kinds() throws {
        let ring = "[[0,0],[10,0],[10,10],[0,10],[0,0]]"
        let hole = "[[4,4],[6,4],[6,6],[4,6],[4,4]]"
        let polygon = #"{"type":"Polygon","coordinates":[\#(ring),\#(hole)]}"#
        let inside = GeoCoordinate(latitude: 2, longitude: 2)
        let inHole = GeoCoordinate(latitude: 5, longitude: 5)
        for text in [
            polygon,
            #"{"type":"MultiPolygon","coordinates":[[\#(ring),\#(hole)],[[[20,20],[21,20],[21,21],[20,20]]]]}"#,
            #"{"type":"Feature","properties":{"name":"x"},"geometry":\#(polygon)}"#,
            #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":null,"geometry":{"type":"Point","coordinates":[1,1]}},{"type":"Feature","properties":{},"geometry":\#(polygon)}]}"#.replacingOccurrences(of: #"{"type":"Point","coordinates":[1,1]}"#, with: "null"),
        ] {
            let region = try area(text)
            #expect(region.contains(inside))
            #expect(!region.contains(inHole))
            #expect(!region.contains(GeoCoordinate(latitude: 11, longitude: 5)))
        }
        // Positions are [longitude, latitude]: a thin polygon east-west.
        let thin = try area(#"{"type":"Polygon","coordinates":[[[0,0],[30,0],[30,1],[0,1],[0,0]]]}"#)
        #expect(thin.contains(GeoCoordinate(latitude: 0.5, longitude: 20)))
        #expect(!thin.contains(GeoCoordinate(latitude: 20, longitude: 0.5)))
    }

    @Test("Invalid GeoJSON names the member that is wrong")
    func paths() {
        #expect(invalid(#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]],[[0,0],[1,"x"],[0,0],[0,0]]]}"#)?.path == "coordinates[1][1]")
        #expect(invalid(#"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}}]}"#)?.path == "features[0].geometry.coordinates[0]")
        #expect(invalid(#"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#)?.path == "type")
        #expect(invalid(#"{"coordinates":[]}"#)?.path == "type")
        #expect(invalid(#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,95],[0,0]]]}"#)?.path == "coordinates[0][2]")
        let antimeridian = invalid(#"{"type":"Polygon","coordinates":[[[179,0],[-179,0],[-179,1],[179,1],[179,0]]]}"#)
        #expect(antimeridian?.path == "coordinates")
        #expect(antimeridian?.reason.contains("antimeridian") == true)
    }

    @Test("A ring that is not closed is named so, with both positions; one with too few positions is counted")
    func unclosedAndShortRings() {
        let open = invalid(#"{"type":"Polygon","coordinates":[[[10.0,53.5],[10.1,53.5],[10.1,53.6],[10.0,53.6],[10.05,53.65]]]}"#)
        #expect(open?.path == "coordinates[0]")
        #expect(open?.reason == "the ring is not closed: its last position, [10.05, 53.65] (coordinates[0][4]), differs from its first, [10.0, 53.5]; a linear ring ends where it starts (RFC 7946 §3.1.6).")
        let hole = invalid(#"{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[4,4],[6,4],[6,6],[4,6]]]}"#)
        #expect(hole?.path == "coordinates[1]")
        #expect(hole?.reason.hasPrefix("the ring is not closed: its last position, [4.0, 6.0] (coordinates[1][3]), differs from its first, [4.0, 4.0]") == true, "\(hole?.reason ?? "")")
        // Closed but too short: the count is what is wrong.
        let short = invalid(#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}"#)
        #expect(short?.reason == "a linear ring needs at least four positions, the last the same as the first (RFC 7946 §3.1.6); it has 3.")
    }

    @Test("Text that is not JSON: the message says where it stops parsing")
    func syntax() {
        let failure = invalid("{\"type\": \"Polygon\",\n \"coordinates\": [[[0,0], [1,0]]] oops }")
        #expect(failure?.path == "")
        #expect(failure?.reason.contains("line 2") == true, "\(failure?.reason ?? "")")
    }

    @Test("A file that cannot be opened is not an invalid one")
    func missingFile() {
        #expect(throws: GeoJSONError.cannotRead(file: "/nonexistent/park.geojson", reason: "No such file or directory")) {
            try GeoJSON.polygonalRegion(contentsOf: "/nonexistent/park.geojson")
        }
    }

    @Test("A LineString for a corridor, bare or in a Feature or FeatureCollection")
    func lineString() throws {
        let line = #"{"type":"LineString","coordinates":[[-0.1,51.5],[-0.09,51.51,12.5]]}"#
        for text in [line, #"{"type":"Feature","geometry":\#(line),"properties":{}}"#, #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":\#(line)}]}"#] {
            let path = try GeoJSON.lineString(data: Array(text.utf8), name: "route.geojson")
            #expect(path == [GeoCoordinate(latitude: 51.5, longitude: -0.1), GeoCoordinate(latitude: 51.51, longitude: -0.09)])
        }
    }
}
