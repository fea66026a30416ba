import Foundation
import GPSCore
import GPX

extension WorkoutEnvelope {
    /// What our elements among some extension elements say (a GPX track's, a TCX activity's or
    /// track point's): the header, the events in order, whether a route segment begins.
    struct Marks: Sendable, Hashable {
        var header: Header?
        var events: [WorkoutEvent] = []
        var segmentStart = false
        /// The samples written beside a GPX point (``WorkoutEnvelope/appendSample(_:_:to:)``).
        var samples: [QuantitySample] = []
    }

    /// Reads our elements among `fragments` (XML text, each declaring its namespaces, as the GPX
    /// and TCX readers keep extensions); the others are passed over, and so is an element of ours
    /// whose attributes do not read (a damaged file: the import then goes by what other tools read).
    static func marks(in fragments: [String]) -> Marks {
        let ours = fragments.filter { $0.contains(namespace) }
        guard !ours.isEmpty else { return Marks() }
        let receiver = MarksReceiver()
        var document = Array("<x>".utf8)
        for fragment in ours { document += fragment.utf8 }
        document += "</x>".utf8
        let parser = XMLPushParser(receiver: receiver, filename: "extensions", format: "an extension")
        receiver.parser = parser
        _ = document.withUnsafeBytes { parser.parse($0, final: true) }
        return receiver.marks
    }
}

/// Gathers our elements (children of the wrapper element, in our namespace) by their attributes.
private final class MarksReceiver: XMLSAXReceiver {
    var marks = WorkoutEnvelope.Marks()
    var parser: XMLPushParser?
    private(set) var isStopped = false
    private var depth = 0

    func startElement(
        localname: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?, uri: UnsafePointer<UInt8>?,
        attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    ) {
        depth += 1
        guard depth == 2, let uri, String(cString: uri) == WorkoutEnvelope.namespace else { return }
        var values: [String: String] = [:]
        if let attributes {
            for index in 0..<attributeCount {
                let base = index * 5
                guard attributes[base + 2] == nil, let name = attributes[base], let start = attributes[base + 3],
                      let end = attributes[base + 4] else { continue }
                let text = String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
                // libxml2, told not to substitute entities, gives `&amp;` in a value as `&#38;`.
                values[String(cString: name)] = text.replacing("&#38;", with: "&")
            }
        }
        switch String(cString: localname) {
        case "workout":
            guard let id = values["id"].flatMap(UUID.init(uuidString:)), let start = values["start"].flatMap(RFC3339.parse)?.date,
                  let end = values["end"].flatMap(RFC3339.parse)?.date, start <= end else { return }
            marks.header = WorkoutEnvelope.Header(
                id: id, start: start, end: end, autoPause: values["autoPause"] == "true",
                distance: values["distance"].flatMap(Double.init).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil },
                energy: values["energy"].flatMap(Double.init).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil },
                counting: WorkoutEnvelope.DistanceCounting(source: values["distanceSource"], sensorFactor: values["sensorFactor"].flatMap(Double.init)),
                isIndoor: values["indoor"].flatMap { $0 == "true" ? true : $0 == "false" ? false : nil })
        case "event":
            guard let kind = values["kind"].flatMap(WorkoutEvent.Kind.init(rawValue:)),
                  let time = values["time"].flatMap(RFC3339.parse)?.date else { return }
            marks.events.append(WorkoutEvent(
                kind, at: time, name: kind == .marker ? values["name"] : nil,
                trigger: kind == .lap ? values["trigger"].flatMap(WorkoutEvent.LapTrigger.init(rawValue:)) : nil))
        case "segment":
            marks.segmentStart = true
        case "sample":
            guard let type = values["type"].flatMap(QuantityType.init(rawValue:)), let start = values["start"].flatMap(RFC3339.parse)?.date,
                  let value = values["value"].flatMap(Double.init), value.isFinite else { return }
            let end = values["end"].flatMap(RFC3339.parse)?.date ?? start
            guard end >= start else { return }
            marks.samples.append(QuantitySample(type: type, value: value, start: start, end: end))
        default:
            break
        }
    }

    func endElement() {
        depth -= 1
    }

    func characters(_ bytes: UnsafePointer<UInt8>, count: Int) {}

    func refuse(_ reason: String) {
        isStopped = true
        parser?.stop()
    }
}

extension WorkoutEnvelope.DistanceCounting {
    /// The counting the attributes (or FIT fields) say: `nil` unless the source is one we know
    /// and the factor a positive number (a damaged file: the import then counts as for another
    /// tool's file, by the points).
    init?(source: String?, sensorFactor: Double?) {
        guard let source = source.flatMap(DistanceSource.init(rawValue:)), let factor = sensorFactor, factor.isFinite, factor > 0
        else { return nil }
        self.init(source: source, sensorFactor: factor)
    }
}
