#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import GPX

/// The TCX state machine behind ``TCXReader``: it receives libxml2's SAX2 callbacks through the
/// GPX module's `XMLPushParser` (which refuses DTDs and entities), keeps the stack of open
/// elements it knows, gathers the text of each, and acts on it when the element closes, by what
/// the element is and where it lies (a `<DistanceMeters>` in a `<Trackpoint>` is the point's, in a
/// `<Lap>` the lap's). One instance reads one document, on one thread.
final class TCXParseCore: XMLSAXReceiver {
    /// The elements the reader acts on (TCX v2's, and ActivityExtension v2's `TPX` and `LX`).
    enum Name: String {
        case root = "TrainingCenterDatabase", activity = "Activity", id = "Id", lap = "Lap"
        case totalTimeSeconds = "TotalTimeSeconds", distanceMeters = "DistanceMeters", maximumSpeed = "MaximumSpeed"
        case calories = "Calories", averageHeartRateBpm = "AverageHeartRateBpm", maximumHeartRateBpm = "MaximumHeartRateBpm"
        case value = "Value", intensity = "Intensity", cadence = "Cadence", triggerMethod = "TriggerMethod"
        case track = "Track", trackpoint = "Trackpoint", time = "Time", position = "Position"
        case latitudeDegrees = "LatitudeDegrees", longitudeDegrees = "LongitudeDegrees", altitudeMeters = "AltitudeMeters"
        case heartRateBpm = "HeartRateBpm", tpx = "TPX", speed = "Speed", runCadence = "RunCadence", watts = "Watts"
        case lx = "LX", avgSpeed = "AvgSpeed", avgWatts = "AvgWatts", maxWatts = "MaxWatts"
        case notes = "Notes", creator = "Creator", name = "Name", course = "Course", extensions = "Extensions"
        case coursePoint = "CoursePoint", pointType = "PointType"
        case other
    }

    /// The most characters kept of a lap's `Intensity` and `TriggerMethod`, one word each.
    static let maximumWordLength = 64

    static let namespaces = [
        "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2", "http://www.garmin.com/xmlschemas/ActivityExtension/v2",
    ]

    let file: String
    let options: TCXReadOptions
    var summary: TCXReadSummary
    private(set) var error: TCXError?
    private(set) var isStopped = false
    private(set) var sawRoot = false
    var parser: XMLPushParser!
    private let handler: (TCXEvent) throws -> Void

    private var stack: [Name] = []
    private var text: [UInt8] = []
    private var activity: TCXActivity?
    private var lap: TCXLap?
    private var point: (line: Int, column: Int, time: GPXTime?, values: TCXTrackpoint?, problem: String?)?
    private var course: TCXCourse?
    /// A course's `<Trackpoint>` or `<CoursePoint>` being read: its line and what it said so far.
    private var coursePlace: (line: Int, latitude: Double?, longitude: Double?, altitude: Double?, distance: Double?, name: String?, type: String?, notes: String?)?
    /// An element of another namespace in an activity's or a point's `<Extensions>`, being kept
    /// as XML text (``TCXActivity/extensions``, ``TCXTrackpoint/extensions``).
    private var fragment = XMLFragmentWriter()

    init(file: String, options: TCXReadOptions, handler: @escaping (TCXEvent) throws -> Void) {
        self.file = file
        self.options = options
        self.handler = handler
        summary = TCXReadSummary(file: file)
        parser = XMLPushParser(receiver: self, filename: file, format: "TCX")
    }

    func fail(_ failure: TCXError) {
        guard !isStopped else { return }
        error = failure
        isStopped = true
        parser.stop()
    }

    func refuse(_ reason: String) {
        fail(.refused(file: file, line: parser.line, column: parser.column, reason: reason))
    }

    private func emit(_ event: TCXEvent) {
        guard !isStopped else { return }
        do {
            try handler(event)
        } catch {
            fail(.handlerFailed(file: file, line: parser.line, reason: String(describing: error)))
        }
    }

    /// An invalid value: fatal in strict mode; else reported, and the value (or point) dropped.
    private func invalid(_ reason: String) {
        if options.strict {
            fail(.invalidValue(file: file, line: parser.line, column: parser.column, reason: reason))
        } else {
            summary.add(GPXSkip(line: parser.line, column: parser.column, reason: reason))
        }
    }

    // MARK: - SAX callbacks

    func startElement(
        localname: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?, uri: UnsafePointer<UInt8>?,
        attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    ) {
        guard !isStopped else { return }
        guard stack.count + fragment.depth < options.maximumDepth else {
            return fail(.limitExceeded(file: file, line: parser.line, column: parser.column, reason: "elements nested deeper than \(options.maximumDepth) levels"))
        }
        let namespace = uri.map { String(cString: $0) }
        let known = namespace.map(Self.namespaces.contains) ?? true
        // Another namespace's element in an activity's or a point's <Extensions>: kept as text.
        if !fragment.isEmpty || (!known && stack.last == .extensions && (point != nil || stack.dropLast().last == .activity)) {
            fragment.start(localname: localname, prefix: prefix, uri: uri, attributeCount: attributeCount, attributes: attributes)
            return
        }
        let name = known ? Name(rawValue: String(cString: localname)) ?? .other : .other
        text.removeAll(keepingCapacity: true)
        if stack.isEmpty {
            guard name == .root else {
                return fail(.malformed(file: file, line: parser.line, column: parser.column,
                                       reason: "the root element is <\(String(cString: localname))>, not <TrainingCenterDatabase>: this is not a TCX file"))
            }
            sawRoot = true
        }
        var attributeValues: [String: String] = [:]
        if let attributes {
            for index in 0..<attributeCount {
                guard let attribute = attributes[index * 5], let start = attributes[index * 5 + 3], let end = attributes[index * 5 + 4] else { continue }
                guard end - start <= options.maximumTextLength else {
                    return fail(.limitExceeded(file: file, line: parser.line, column: parser.column, reason: "an attribute value longer than \(options.maximumTextLength) bytes"))
                }
                attributeValues[String(cString: attribute)] = String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
            }
        }
        switch name {
        case .activity:
            summary.activities += 1
            let start = TCXActivityStart(index: summary.activities - 1, sport: attributeValues["Sport"], line: parser.line)
            activity = TCXActivity(index: start.index, sport: start.sport, line: start.line, laps: 0)
            emit(.activityStart(start))
        case .lap where activity != nil:
            summary.laps += 1
            var time: GPXTime?
            if let text = attributeValues["StartTime"] {
                time = RFC3339.parse(text)
                if time == nil { invalid("the lap's StartTime '\(text.prefix(40))' is not an RFC 3339 time; it was dropped") }
            }
            let index = activity?.laps ?? 0
            activity?.laps += 1
            lap = TCXLap(index: index, startTime: time, line: parser.line)
            emit(.lapStart(TCXLapStart(index: index, startTime: time, line: parser.line)))
        case .track where lap != nil:
            summary.tracks += 1
            emit(.trackStart(line: parser.line))
        case .trackpoint where lap != nil:
            point = (parser.line, parser.column, nil, nil, nil)
        case .trackpoint where course != nil:
            course?.trackpoints += 1
            coursePlace = (parser.line, nil, nil, nil, nil, nil, nil, nil)
        case .coursePoint where course != nil:
            coursePlace = (parser.line, nil, nil, nil, nil, nil, nil, nil)
        case .course:
            summary.courses += 1
            course = TCXCourse(index: summary.courses - 1, name: nil, trackpoints: 0, line: parser.line)
        default:
            break
        }
        stack.append(name)
    }

    func characters(_ bytes: UnsafePointer<UInt8>, count: Int) {
        guard !isStopped else { return }
        if !fragment.isEmpty {
            fragment.characters(UnsafeBufferPointer(start: bytes, count: count))
            if fragment.count > options.maximumTextLength {
                fail(.limitExceeded(file: file, line: parser.line, column: parser.column, reason: "an extension element longer than \(options.maximumTextLength) bytes"))
            }
            return
        }
        guard text.count + count <= options.maximumTextLength else {
            return fail(.limitExceeded(file: file, line: parser.line, column: parser.column, reason: "text longer than \(options.maximumTextLength) bytes"))
        }
        text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
    }

    func endElement() {
        guard !isStopped else { return }
        if !fragment.isEmpty {
            guard let element = fragment.end() else { return }
            if let line = point?.line {
                if point?.values == nil { point?.values = TCXTrackpoint(time: GPXTime(date: Date(timeIntervalSince1970: 0)), line: line) }
                point?.values?.extensions.append(element)
            } else if (activity?.extensions.count ?? .max) < TCXActivity.maximumExtensions {
                activity?.extensions.append(element)
            }
            return
        }
        guard let name = stack.popLast() else { return }
        let parent = stack.last, grandparent = stack.count > 1 ? stack[stack.count - 2] : nil
        defer { text.removeAll(keepingCapacity: true) }
        if point != nil, name != .trackpoint {
            pointValue(name, parent: parent, grandparent: grandparent)
            return
        }
        if coursePlace != nil, name != .trackpoint, name != .coursePoint {
            coursePlaceValue(name, parent: parent)
            return
        }
        switch (name, parent) {
        case (.trackpoint, _) where point != nil:
            finishPoint()
        case (.track, .lap):
            emit(.trackEnd)
        case (.lap, _) where lap != nil:
            if let finished = lap { emit(.lapEnd(finished)) }
            lap = nil
        case (.activity, _) where activity != nil:
            if let finished = activity { emit(.activityEnd(finished)) }
            activity = nil
        case (.trackpoint, _) where coursePlace != nil, (.coursePoint, _) where coursePlace != nil:
            finishCoursePlace(isPoint: name == .coursePoint)
        case (.course, _) where course != nil:
            if let finished = course { emit(.course(finished)) }
            course = nil
        case (.id, .activity):
            activity?.id = time("the activity's Id")
        case (.notes, .activity):
            activity?.notes = string()
        case (.name, .creator) where grandparent == .activity:
            activity?.creator = string()
        case (.name, .course):
            course?.name = string()
        default:
            if lap != nil { lapValue(name, parent: parent) }
        }
    }

    // MARK: - Values

    private func string() -> String? {
        let trimmed = String(decoding: text, as: UTF8.self).trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The text as a finite number, or `nil` (reported as `what` when it is there but not one).
    private func number(_ what: String) -> Double? {
        guard let text = string() else { return nil }
        guard let value = Double(text), value.isFinite else {
            invalid("\(what) '\(text.prefix(40))' is not a number; it was dropped")
            return nil
        }
        return value
    }

    private func time(_ what: String) -> GPXTime? {
        guard let text = string() else { return nil }
        guard let time = RFC3339.parse(text), RFC3339.supportedRange.contains(time.date) else {
            invalid("\(what) '\(text.prefix(40))' is not an RFC 3339 time; it was dropped")
            return nil
        }
        return time
    }

    private func lapValue(_ name: Name, parent: Name?) {
        switch (name, parent) {
        case (.totalTimeSeconds, .lap): lap?.totalTime = number("the lap's TotalTimeSeconds")
        case (.distanceMeters, .lap): lap?.distance = number("the lap's DistanceMeters")
        case (.maximumSpeed, .lap): lap?.maximumSpeed = number("the lap's MaximumSpeed")
        case (.calories, .lap): lap?.calories = number("the lap's Calories")
        case (.cadence, .lap): lap?.cadence = number("the lap's Cadence")
        // Words of a few letters ("Active", "Manual"): a megabyte of text is not kept with each lap.
        case (.intensity, .lap): lap?.intensity = string().map { String($0.prefix(Self.maximumWordLength)) }
        case (.triggerMethod, .lap): lap?.triggerMethod = string().map { String($0.prefix(Self.maximumWordLength)) }
        case (.value, .averageHeartRateBpm): lap?.averageHeartRate = number("the lap's AverageHeartRateBpm")
        case (.value, .maximumHeartRateBpm): lap?.maximumHeartRate = number("the lap's MaximumHeartRateBpm")
        case (.avgSpeed, .lx): lap?.averageSpeed = number("the lap's AvgSpeed")
        case (.avgWatts, .lx): lap?.averageWatts = number("the lap's AvgWatts")
        case (.maxWatts, .lx): lap?.maximumWatts = number("the lap's MaxWatts")
        default: break
        }
    }

    private func pointValue(_ name: Name, parent: Name?, grandparent: Name?) {
        guard var current = point else { return }
        var values = current.values ?? TCXTrackpoint(time: GPXTime(date: Date(timeIntervalSince1970: 0)), line: current.line)
        current.values = nil  // `values` alone holds its extensions while it changes
        switch (name, parent) {
        case (.time, .trackpoint):
            guard let text = string() else { break }
            current.time = RFC3339.parse(text).flatMap { RFC3339.supportedRange.contains($0.date) ? $0 : nil }
            if current.time == nil { current.problem = current.problem ?? "its time '\(text.prefix(40))' is not an RFC 3339 time" }
        case (.latitudeDegrees, .position): values.latitude = number("a latitude")
        case (.longitudeDegrees, .position): values.longitude = number("a longitude")
        case (.altitudeMeters, .trackpoint): values.altitude = number("an altitude")
        case (.distanceMeters, .trackpoint): values.distance = number("a distance")
        case (.value, .heartRateBpm) where grandparent == .trackpoint: values.heartRate = number("a heart rate")
        case (.cadence, .trackpoint): values.cadence = number("a cadence")
        case (.runCadence, .tpx): values.cadence = values.cadence ?? number("a run cadence")
        case (.speed, .tpx): values.speed = number("a speed")
        case (.watts, .tpx): values.power = number("a power")
        default: break
        }
        current.values = values
        point = current
    }

    private func coursePlaceValue(_ name: Name, parent: Name?) {
        guard var place = coursePlace else { return }
        switch (name, parent) {
        case (.latitudeDegrees, .position): place.latitude = number("a latitude")
        case (.longitudeDegrees, .position): place.longitude = number("a longitude")
        case (.altitudeMeters, .trackpoint), (.altitudeMeters, .coursePoint): place.altitude = number("an altitude")
        case (.distanceMeters, .trackpoint): place.distance = number("a distance")
        case (.name, .coursePoint): place.name = string()
        case (.pointType, .coursePoint): place.type = string().map { String($0.prefix(Self.maximumWordLength)) }
        case (.notes, .coursePoint): place.notes = string()
        default: break
        }
        coursePlace = place
    }

    /// A course's track point or course point ends: kept when it has a position on the Earth.
    private func finishCoursePlace(isPoint: Bool) {
        guard let place = coursePlace else { return }
        coursePlace = nil
        let what = isPoint ? "a course point" : "a course's track point"
        guard let latitude = place.latitude, let longitude = place.longitude else {
            if place.latitude != nil || place.longitude != nil || isPoint {
                invalid("\(what) has no position (a latitude and a longitude); it was skipped")
            }
            return
        }
        guard abs(latitude) <= 90, abs(longitude) <= 180 else {
            return invalid("\(what)'s position \(latitude), \(longitude) is outside ±90°, ±180°; it was skipped")
        }
        if isPoint {
            course?.points.append(TCXCoursePoint(
                name: place.name, latitude: latitude, longitude: longitude, altitude: place.altitude,
                pointType: place.type, notes: place.notes, line: place.line))
        } else {
            course?.positions.append(TCXCoursePosition(
                latitude: latitude, longitude: longitude, altitude: place.altitude, distance: place.distance, line: place.line))
        }
    }

    private func finishPoint() {
        guard let current = point else { return }
        point = nil
        guard let time = current.time else {
            activity?.pointsWithoutTime += 1
            let problem = (current.problem ?? "the point has no time") + "; the point was skipped"
            if options.strict {
                fail(.invalidValue(file: file, line: current.line, column: current.column, reason: problem))
            } else {
                summary.add(GPXSkip(line: current.line, column: current.column, reason: problem))
            }
            return
        }
        var values = current.values ?? TCXTrackpoint(time: time, line: current.line)
        values.time = time
        if (values.latitude == nil) != (values.longitude == nil) {
            invalid("the point has a latitude or a longitude but not both; its position was dropped")
            (values.latitude, values.longitude) = (nil, nil)
        } else if let latitude = values.latitude, let longitude = values.longitude, abs(latitude) > 90 || abs(longitude) > 180 {
            invalid("its position \(latitude), \(longitude) is outside ±90°, ±180°; its position was dropped")
            (values.latitude, values.longitude) = (nil, nil)
        }
        summary.trackpoints += 1
        emit(.trackpoint(values))
    }
}

extension TCXParseCore: XMLDocumentCore {
    var compressed: Bool {
        get { summary.compressed }
        set { summary.compressed = newValue }
    }
}
