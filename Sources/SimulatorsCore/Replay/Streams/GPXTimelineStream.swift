#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import GPX
import LocationCore

/// A GPX file's points as a replay timeline, read as it plays: the reader parses on a thread of its
/// own and hands points over a few hundred at a time, so a file of any size (a gzip bomb included)
/// plays in constant memory, and the first fix is ready as soon as the first point is parsed.
///
/// It plays a file's track points (every track, in order), or its route points when it has no
/// track, or its waypoints when it has neither, paced by their times as Xcode paces a GPX location
/// simulation: a point without a time comes a second after the one before it; times that go
/// backwards (a second track recorded earlier) are played at once.
final class GPXTimelineStream: ReplayStream, @unchecked Sendable {
    private let handOff = BlockingHandOff<[ReplayLocationSource.Entry]>(capacity: 4)
    private var batch: [ReplayLocationSource.Entry] = []
    private var index = 0

    /// Starts reading `path`; points and errors come through ``next()``.
    init(path: String) {
        let handOff = handOff
        Threads.detach {
            let producer = Producer(path: path, handOff: handOff)
            producer.run()
        }
    }

    deinit {
        handOff.close()  // the reader thread stops at its next point
    }

    func next() throws(ReplayRecording.ReadError) -> ReplayLocationSource.Entry? {
        while index == batch.count {
            guard let next = try handOff.next() else { return nil }
            batch = next
            index = 0
        }
        defer { index += 1 }
        return batch[index]
    }

    /// The reader thread's work: one pass for track points, and a second for route points or
    /// waypoints when the first found no track.
    private struct Producer {
        let path: String
        let handOff: BlockingHandOff<[ReplayLocationSource.Entry]>

        private enum Kind { case track, route, waypoint }
        private struct Stop: Error {}

        func run() {
            do {
                let counts = try pass(playing: .track)
                if counts.tracks == 0 {
                    if counts.routes > 0 {
                        _ = try pass(playing: .route)
                    } else if counts.waypoints > 0 {
                        _ = try pass(playing: .waypoint)
                    } else {
                        handOff.finish(throwing: ReplayRecording.ReadError(file: path, reason: "no track, route or waypoint to replay"))
                        return
                    }
                }
                handOff.finish()
            } catch let error as ReplayRecording.ReadError {
                handOff.finish(throwing: error)
            } catch {
                handOff.finish()  // the consumer closed: nothing more to say
            }
        }

        /// Reads the file once, handing over the points of `kind`; returns how many points of each
        /// kind it has. Throws `Stop` once the consumer has gone.
        private func pass(playing kind: Kind) throws -> (tracks: Int, routes: Int, waypoints: Int) {
            var counts = (tracks: 0, routes: 0, waypoints: 0)
            var timeline = Paced(device: String(path.split(separator: "/").last ?? Substring(path)))
            var batch: [ReplayLocationSource.Entry] = []
            batch.reserveCapacity(256)
            do {
                _ = try GPXReader().read(fileAt: path) { event in
                    let point: GPXPoint
                    switch event {
                    case let .trackPoint(found):
                        counts.tracks += 1
                        guard kind == .track else { return }
                        point = found
                    case let .routePoint(found):
                        counts.routes += 1
                        guard kind == .route else { return }
                        point = found
                    case let .waypoint(found):
                        counts.waypoints += 1
                        guard kind == .waypoint else { return }
                        point = found
                    default:
                        return
                    }
                    batch.append(timeline.entry(for: point))
                    if batch.count == 256 {
                        guard handOff.send(batch) else { throw Stop() }
                        batch.removeAll(keepingCapacity: true)
                    }
                }
            } catch {
                if case .handlerFailed = error { throw Stop() }
                // The points read before the fault play before the replay stops for it.
                if !batch.isEmpty, !handOff.send(batch) { throw Stop() }
                throw ReplayRecording.ReadError(error, file: path)
            }
            if !batch.isEmpty, !handOff.send(batch) { throw Stop() }
            return counts
        }
    }

    /// Offsets from the points' times, as the type's description says.
    private struct Paced {
        let device: String
        var start: Date?
        var last: Duration?

        mutating func entry(for point: GPXPoint) -> ReplayLocationSource.Entry {
            var offset = last.map { $0 + .seconds(1) } ?? .zero
            if let time = point.time?.date {
                let start = start ?? time  // the first timed point is the origin of the times
                self.start = start
                offset = max(GPSDScript.duration(time.timeIntervalSince(start)), last ?? .zero)
            }
            last = offset
            let location = Location(
                latitude: point.latitude, longitude: point.longitude,
                altitude: point.elevation,
                speed: point.speed, course: point.course,
                time: point.time?.date, receivedAt: point.time?.date ?? Date(timeIntervalSince1970: 0) + GPSDScript.seconds(offset),
                mode: point.elevation == nil ? .fix2D : .fix3D,
                device: device, isSimulated: true)
            return ReplayLocationSource.Entry(offset: offset, event: .location(location))
        }
    }
}

extension ReplayRecording.ReadError {
    /// The error of a GPX file that could not be read, naming the file once (GPX's own error names
    /// it too).
    init(_ error: GPXError, file: String) {
        switch error {
        case let .unreadable(_, reason):
            self.init(file: file, reason: "cannot read the file (\(reason))")
        case let .malformed(_, 0, _, reason):
            self.init(file: file, reason: reason)
        case let .malformed(_, line, column, reason):
            self.init(file: file, line: line, column: column, reason: "malformed GPX: \(reason)")
        case let .refused(_, line, column, reason):
            self.init(file: file, line: line, column: column, reason: "refused: \(reason)")
        case let .limitExceeded(_, line, column, reason):
            self.init(file: file, line: line, column: column, reason: "limit exceeded: \(reason)")
        case let .invalidValue(_, line, column, reason):
            self.init(file: file, line: line, column: column, reason: "invalid value: \(reason)")
        case let .handlerFailed(_, line, reason):
            self.init(file: file, line: line, reason: "stopped reading: \(reason)")
        }
    }
}
