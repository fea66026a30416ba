#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import LocationFacade
import RegionMonitoring

/// The lines `locate monitor` prints: one per event, as text or JSON.
final class MonitorPrinter: Sendable {
    private let json: Bool
    private let output = LineWriter()

    init(json: Bool) {
        self.json = json
    }

    static func word(_ state: RegionState) -> String {
        switch state {
        case .satisfied: "inside"
        case .unsatisfied: "outside"
        case .unknown: "unknown"
        }
    }

    /// A region's state at the start.
    func printState(_ identifier: String, _ state: RegionState, anchor: AnchorAlarm?) {
        line { buffer in
            if json {
                buffer.append(contentsOf: #"{"region":"#.utf8)
                TextBytes.appendJSONString(identifier, to: &buffer)
                buffer.append(contentsOf: #","event":"state","state":""#.utf8)
                buffer.append(contentsOf: Self.word(state).utf8)
                buffer.append(UInt8(ascii: "\""))
                if let anchor { appendAnchor(anchor, to: &buffer) }
                buffer.append(UInt8(ascii: "}"))
            } else {
                var text = "\(identifier) state \(Self.word(state))"
                if let anchor { text += " anchor \(anchor.anchor) swing \(TextBytes.fixed(anchor.swingRadius, decimals: 1))m" }
                buffer.append(contentsOf: text.utf8)
            }
        }
    }

    /// The anchor dropped at the first fix.
    func printDropped(_ anchor: AnchorAlarm, at fix: Location) {
        line { buffer in
            if json {
                buffer.append(contentsOf: #"{"region":"anchor","event":"state","state":"inside""#.utf8)
                appendAnchor(anchor, to: &buffer)
                appendFix(fix, time: fix.time ?? fix.receivedAt, to: &buffer)
                buffer.append(UInt8(ascii: "}"))
            } else {
                buffer.append(contentsOf: "anchor state inside anchor \(anchor.anchor) swing \(TextBytes.fixed(anchor.swingRadius, decimals: 1))m".utf8)
            }
        }
    }

    /// The distance and bearing from `fix` to the anchor.
    func printStatus(_ anchor: AnchorAlarm, at fix: Location) {
        line { buffer in
            if json {
                buffer.append(contentsOf: #"{"region":"anchor","event":"status""#.utf8)
                appendFix(fix, time: fix.time ?? fix.receivedAt, to: &buffer)
                buffer.append(contentsOf: #","distance":"#.utf8)
                TextBytes.appendFixed(anchor.distance(from: fix), decimals: 1, to: &buffer)
                buffer.append(contentsOf: #","bearing":"#.utf8)
                TextBytes.appendFixed(anchor.bearing(from: fix), decimals: 1, to: &buffer)
                buffer.append(contentsOf: #","swing_radius":"#.utf8)
                TextBytes.appendFixed(anchor.swingRadius, decimals: 1, to: &buffer)
                buffer.append(UInt8(ascii: "}"))
            } else {
                let text = "\(RFC3339.string(from: fix.time ?? fix.receivedAt)) anchor status \(TextBytes.fixed(anchor.distance(from: fix), decimals: 1))m at "
                    + "\(TextBytes.fixed(anchor.bearing(from: fix), decimals: 0))° (swing \(TextBytes.fixed(anchor.swingRadius, decimals: 1))m)"
                buffer.append(contentsOf: text.utf8)
            }
        }
    }

    func print(_ event: RegionEvent, anchor: AnchorAlarm?) {
        line { buffer in
            if json {
                buffer.append(contentsOf: #"{"region":"#.utf8)
                TextBytes.appendJSONString(event.identifier, to: &buffer)
                buffer.append(contentsOf: #","event":""#.utf8)
                buffer.append(contentsOf: event.kind.rawValue.utf8)
                buffer.append(UInt8(ascii: "\""))
                if let fix = event.location {
                    appendFix(fix, time: event.date, to: &buffer)
                } else {
                    // No fix decided it (the silence did): the keys are there, empty.
                    buffer.append(contentsOf: #","time":""#.utf8)
                    RFC3339.append(event.date, to: &buffer)
                    buffer.append(contentsOf: #"","latitude":null,"longitude":null,"accuracy":null"#.utf8)
                }
                if let first = event.firstIndication, first != event.date {
                    buffer.append(contentsOf: #","first":""#.utf8)
                    RFC3339.append(first, to: &buffer)
                    buffer.append(UInt8(ascii: "\""))
                }
                if let direction = event.direction {
                    buffer.append(contentsOf: #","direction":""#.utf8)
                    buffer.append(contentsOf: direction.rawValue.utf8)
                    buffer.append(UInt8(ascii: "\""))
                }
                if let anchor, let fix = event.location {
                    buffer.append(contentsOf: #","distance":"#.utf8)
                    TextBytes.appendFixed(anchor.distance(from: fix), decimals: 1, to: &buffer)
                    buffer.append(contentsOf: #","bearing":"#.utf8)
                    TextBytes.appendFixed(anchor.bearing(from: fix), decimals: 1, to: &buffer)
                }
                buffer.append(UInt8(ascii: "}"))
            } else {
                var text = "\(RFC3339.string(from: event.date)) \(event.identifier) \(event.kind.rawValue)"
                if let fix = event.location {
                    text += " \(TextBytes.fixed(fix.latitude, decimals: 7)) \(TextBytes.fixed(fix.longitude, decimals: 7))"
                    if let accuracy = fix.horizontalAccuracy { text += " ±\(TextBytes.fixed(accuracy, decimals: 1))m" }
                }
                if let direction = event.direction { text += " \(direction.rawValue)" }
                if let anchor, let fix = event.location {
                    text += " anchor \(TextBytes.fixed(anchor.distance(from: fix), decimals: 1))m at \(TextBytes.fixed(anchor.bearing(from: fix), decimals: 0))°"
                }
                buffer.append(contentsOf: text.utf8)
            }
        }
    }

    func drain() {
        output.drain()
    }

    private func line(_ body: (inout [UInt8]) -> Void) {
        output.append { buffer in
            body(&buffer)
            buffer.append(UInt8(ascii: "\n"))
        }
    }

    private func appendFix(_ fix: Location, time: Date, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: #","time":""#.utf8)
        RFC3339.append(time, to: &buffer)
        buffer.append(contentsOf: #"","latitude":"#.utf8)
        TextBytes.appendFixed(fix.latitude, decimals: 7, to: &buffer)
        buffer.append(contentsOf: #","longitude":"#.utf8)
        TextBytes.appendFixed(fix.longitude, decimals: 7, to: &buffer)
        buffer.append(contentsOf: #","accuracy":"#.utf8)
        TextBytes.appendJSONNumber(fix.horizontalAccuracy, to: &buffer)
    }

    private func appendAnchor(_ anchor: AnchorAlarm, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: #","anchor_latitude":"#.utf8)
        TextBytes.appendFixed(anchor.anchor.latitude, decimals: 7, to: &buffer)
        buffer.append(contentsOf: #","anchor_longitude":"#.utf8)
        TextBytes.appendFixed(anchor.anchor.longitude, decimals: 7, to: &buffer)
        buffer.append(contentsOf: #","swing_radius":"#.utf8)
        TextBytes.appendFixed(anchor.swingRadius, decimals: 1, to: &buffer)
    }
}
