#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPX

// The GPX reader under libFuzzer. scripts/fuzz-gpx builds this target with
// `--sanitize fuzzer --sanitize address -Xswiftc -DFUZZING`: libFuzzer then supplies `main` and
// calls `LLVMFuzzerTestOneInput`. In a normal build it is a small command that runs the same
// checks on the files it is given (a crash input from .build-fuzz/, say), so it builds and is
// type-checked with the rest of the package.
//
// Beyond "no crash, no leak, no hang", it checks what the reader promises: every delivered point
// has a valid position and no NaN, the events nest properly, the counts match the events, and
// every unknown extension kept as XML text reads back as the same text.

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func gpxFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    checkBothModes(Data(bytes: start, count: count))
    return 0
}
#else
@main
enum GPXFuzzReplay {
    static func main() throws {
        for path in CommandLine.arguments.dropFirst() {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            checkBothModes(data)
            print("\(path): the reader keeps its promises")
        }
    }
}
#endif

func checkBothModes(_ data: Data) {
    for strict in [false, true] {
        check(data, options: GPXReadOptions(strict: strict, maximumTextLength: 1 << 16))
    }
}

private func check(_ data: Data, options: GPXReadOptions) {
    var depth = 0
    var counts = (tracks: 0, segments: 0, trackPoints: 0, routes: 0, routePoints: 0, waypoints: 0)
    var fragments: [String] = []
    let summary: GPXReadSummary
    do {
        summary = try GPXReader(options: options).read(data: data, name: "fuzz.gpx") { event in
            switch event {
            case .metadata: precondition(depth == 0)
            case .waypoint(let point):
                precondition(depth == 0)
                counts.waypoints += 1
                validate(point, &fragments)
            case .routeStart:
                precondition(depth == 0)
                depth = 1
                counts.routes += 1
            case .routePoint(let point):
                precondition(depth == 1)
                counts.routePoints += 1
                validate(point, &fragments)
            case .routeEnd:
                precondition(depth == 1)
                depth = 0
            case .trackStart:
                precondition(depth == 0)
                depth = 1
                counts.tracks += 1
            case .segmentStart:
                precondition(depth == 1)
                depth = 2
                counts.segments += 1
            case .trackPoint(let point):
                precondition(depth == 2)
                counts.trackPoints += 1
                validate(point, &fragments)
            case .segmentEnd:
                precondition(depth == 2)
                depth = 1
            case .trackEnd:
                precondition(depth == 1)
                depth = 0
            }
        }
    } catch {
        _ = error.description
        return
    }
    precondition(depth == 0)
    precondition(summary.tracks == counts.tracks && summary.segments == counts.segments)
    precondition(summary.trackPoints == counts.trackPoints && summary.routes == counts.routes)
    precondition(summary.routePoints == counts.routePoints && summary.waypoints == counts.waypoints)
    for fragment in fragments.prefix(4) {
        let wrapped = #"<gpx xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="0" lon="0"><extensions>"#
            + fragment + "</extensions></wpt></gpx>"
        var again: [String]?
        let roomy = GPXReadOptions(maximumDepth: 256, maximumTextLength: 1 << 24)
        do {
            _ = try GPXReader(options: roomy).read(data: Data(wrapped.utf8), name: "fragment.gpx") { event in
                if case .waypoint(let point) = event { again = point.unknownExtensions }
            }
        } catch {
            preconditionFailure("a kept extension does not read back: \(error)\n\(fragment)")
        }
        precondition(again == [fragment], "a kept extension reads back differently:\n\(fragment)\n\(again ?? [])")
    }
}

private func validate(_ point: GPXPoint, _ fragments: inout [String]) {
    precondition((-90...90).contains(point.latitude) && (-180...180).contains(point.longitude))
    for value in [point.elevation, point.hdop, point.vdop, point.pdop, point.speed, point.course, point.heartRate,
                  point.cadence, point.power, point.airTemperature, point.waterTemperature, point.depth,
                  point.distance] {
        if let value { precondition(value.isFinite) }
    }
    fragments += point.unknownExtensions
}
