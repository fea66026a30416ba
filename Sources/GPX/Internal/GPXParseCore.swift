#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

/// The GPX state machine behind ``GPXReader``: it receives libxml2's SAX2 callbacks (through
/// `XMLPushParser`), keeps a stack of what each open element is, gathers the text of the leaf
/// elements it cares about, and delivers ``GPXEvent``s to the handler as elements close.
///
/// One instance reads one document, on one thread.
final class GPXParseCore: XMLSAXReceiver {
    /// What an open element is to the reader.
    enum Role: UInt8 {
        case root, metadata, author
        case waypoint, routePoint, trackPoint
        case route, track, segment
        /// A point's `<extensions>`.
        case pointExtensions
        /// A track's `<extensions>`: each child is kept as XML text (``GPXPathInfo/extensions``).
        case trackExtensions
        /// A known extension element that holds values (`gpxtpx:TrackPointExtension`).
        case extensionContainer
        /// A leaf whose text the reader keeps (``field`` says which).
        case field
        /// Not for the reader: the element and everything inside it are skipped.
        case ignored
        /// Inside an unknown extension element that is being re-serialised.
        case fragment
    }

    /// The leaf being read.
    enum Field: UInt8 {
        case none
        case metadataName, metadataDescription, metadataAuthor, metadataTime, metadataKeywords
        case pathName, pathComment, pathDescription, pathSource, pathType, pathNumber
        case elevation, time, pointName, pointComment, pointDescription, symbol, pointType
        case hdop, vdop, pdop, satellites, fix, speed, course
        case heartRate, cadence, power, airTemperature, waterTemperature, depth, distance
    }

    let file: String
    let options: GPXReadOptions
    var summary: GPXReadSummary
    /// The first error; once set, the parse is stopped.
    private(set) var error: GPXError?
    private(set) var isStopped = false
    private(set) var sawRoot = false
    var parser: XMLPushParser!
    private let handler: (GPXEvent) throws -> Void

    private var roles: [Role] = []
    var field = Field.none
    var text: [UInt8] = []
    /// Bytes of text seen in the innermost open element, for the text-length limit.
    private var textLength = 0
    private var namespaces = InternedNameCache<GPXNamespace>(placeholder: .none, classify: GPXNamespace.classify)
    private var names = InternedNameCache<GPXName>(placeholder: .other) { GPXName.classify($0!) }

    var metadata = GPXMetadata()
    private var metadataSent = false
    var path = GPXPathInfo(index: 0)
    private var pathAnnounced = false
    var point = GPXPoint(latitude: 0, longitude: 0)
    /// Why the point being read will be skipped (the first reason), where it began.
    var pointProblem: String?
    private var pointColumn = 0
    private var fragment = XMLFragmentWriter()
    /// Whether the track being read had extension elements past ``GPXPathInfo/maximumExtensions``.
    private var trackExtensionsDropped = false

    init(file: String, options: GPXReadOptions, handler: @escaping (GPXEvent) throws -> Void) {
        self.file = file
        self.options = options
        self.handler = handler
        summary = GPXReadSummary(file: file)
        text.reserveCapacity(256)
        parser = XMLPushParser(receiver: self, filename: file, format: "GPX")
    }

    // MARK: - Stopping

    func fail(_ failure: GPXError) {
        guard !isStopped else { return }
        error = failure
        isStopped = true
        parser.stop()
    }

    /// A DOCTYPE, entity declaration or entity reference.
    func refuse(_ reason: String) {
        fail(.refused(file: file, line: parser.line, column: parser.column, reason: reason))
    }

    private func emit(_ event: GPXEvent) {
        guard !isStopped else { return }
        do {
            try handler(event)
        } catch {
            fail(.handlerFailed(file: file, line: parser.line, reason: String(describing: error)))
        }
    }

    /// An invalid value: fatal in strict mode; otherwise it skips the point being read
    /// (`dropsPoint`) or just the value, and is reported in the summary.
    func invalid(_ reason: String, dropsPoint: Bool) {
        if options.strict {
            fail(.invalidValue(file: file, line: parser.line, column: parser.column, reason: reason))
        } else if dropsPoint {
            if pointProblem == nil { pointProblem = reason }
        } else {
            summary.skipped.append(GPXSkip(line: parser.line, column: parser.column, reason: reason))
        }
    }

    // MARK: - SAX callbacks

    func startElement(
        localname: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?, uri: UnsafePointer<UInt8>?,
        attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    ) {
        guard !isStopped else { return }
        if roles.count >= options.maximumDepth {
            fail(.limitExceeded(
                file: file, line: parser.line, column: parser.column,
                reason: "elements nested deeper than \(options.maximumDepth) levels"))
            return
        }
        if let attributes {
            for index in 0..<attributeCount {
                if let start = attributes[index * 5 + 3], let end = attributes[index * 5 + 4],
                    end - start > options.maximumTextLength
                {
                    fail(.limitExceeded(
                        file: file, line: parser.line, column: parser.column,
                        reason: "an attribute value longer than \(options.maximumTextLength) bytes"))
                    return
                }
            }
        }
        textLength = 0
        let namespace = namespaces.lookup(uri)
        let name = names.lookup(localname)
        guard let parent = roles.last else {
            startRoot(name: name, namespace: namespace, localname: localname, attributeCount: attributeCount,
                      attributes: attributes)
            return
        }
        let role: Role
        switch parent {
        case .root:
            role = namespace.isGPX ? rootChild(name) : .ignored
        case .metadata:
            role = namespace.isGPX ? metadataChild(name) : .ignored
        case .author:
            role = namespace.isGPX && name == .name ? capture(.metadataAuthor) : .ignored
        case .route, .track:
            role = namespace.isGPX ? pathChild(name, inTrack: parent == .track) : .ignored
        case .segment:
            role = namespace.isGPX && name == .trkpt ? .trackPoint : .ignored
        case .waypoint, .routePoint, .trackPoint:
            role = namespace.isGPX ? pointChild(name) : .ignored
        case .pointExtensions, .extensionContainer:
            role = extensionChild(name, namespace: namespace, isContainerChild: parent == .extensionContainer)
            if role == .fragment {
                fragment.start(
                    localname: localname, prefix: prefix, uri: uri, namespace: namespace,
                    attributeCount: attributeCount, attributes: attributes)
            }
        case .fragment, .trackExtensions:
            role = .fragment
            fragment.start(
                localname: localname, prefix: prefix, uri: uri, namespace: namespace,
                attributeCount: attributeCount, attributes: attributes)
        case .field, .ignored:
            role = .ignored
        }
        if role == .waypoint || role == .routePoint || role == .trackPoint {
            startPoint(attributeCount: attributeCount, attributes: attributes)
        }
        roles.append(role)
    }

    func endElement() {
        guard !isStopped, let role = roles.popLast() else { return }
        textLength = 0
        switch role {
        case .field:
            finishField()
        case .fragment:
            if let element = fragment.end() {
                if roles.last != .trackExtensions {
                    point.unknownExtensions.append(element)
                } else if path.extensions.count < GPXPathInfo.maximumExtensions {
                    path.extensions.append(element)
                } else if !trackExtensionsDropped {
                    // Said once per track: memory must not grow with a file's extensions.
                    trackExtensionsDropped = true
                    summary.skipped.append(GPXSkip(line: parser.line, column: parser.column, reason:
                        "the track has more than \(GPXPathInfo.maximumExtensions) extension elements; the others were dropped"))
                }
            }
        case .waypoint, .routePoint, .trackPoint:
            finishPoint(role)
        case .route:
            announcePath(track: false)
            emit(.routeEnd)
        case .track:
            announcePath(track: true)
            emit(.trackEnd(path))
        case .segment:
            emit(.segmentEnd)
        case .root:
            sendMetadata()
        case .metadata, .author, .pointExtensions, .trackExtensions, .extensionContainer, .ignored:
            break
        }
    }

    func characters(_ bytes: UnsafePointer<UInt8>, count: Int) {
        guard !isStopped else { return }
        textLength += count
        if textLength > options.maximumTextLength {
            fail(.limitExceeded(
                file: file, line: parser.line, column: parser.column,
                reason: "text longer than \(options.maximumTextLength) bytes"))
            return
        }
        switch roles.last {
        case .field:
            text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
        case .fragment:
            fragment.characters(UnsafeBufferPointer(start: bytes, count: count))
            if fragment.bytes.count > options.maximumTextLength {
                fail(.limitExceeded(
                    file: file, line: parser.line, column: parser.column,
                    reason: "an extension element longer than \(options.maximumTextLength) bytes"))
            }
        default:
            break
        }
    }

    // MARK: - Structure

    private func startRoot(
        name: GPXName, namespace: GPXNamespace, localname: UnsafePointer<UInt8>, attributeCount: Int,
        attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    ) {
        guard name == .gpx else {
            fail(.malformed(
                file: file, line: parser.line, column: parser.column,
                reason: "the root element is <\(String(cString: localname))>, not <gpx>: this is not a GPX file"))
            return
        }
        guard namespace.isGPX else {
            fail(.malformed(
                file: file, line: parser.line, column: parser.column,
                reason: "the root <gpx> is in a namespace that is neither GPX 1.0 nor GPX 1.1"))
            return
        }
        sawRoot = true
        summary.encoding = parser.encoding
        metadata.version = namespace == .gpx10 ? "1.0" : namespace == .gpx11 ? "1.1" : nil
        forEachAttribute(attributeCount, attributes) { attribute, value in
            if Self.equals(attribute, "version") {
                metadata.version = Self.attributeString(value)
            } else if Self.equals(attribute, "creator") {
                metadata.creator = Self.attributeString(value)
            }
        }
        roles.append(.root)
    }

    private func rootChild(_ name: GPXName) -> Role {
        switch name {
        case .metadata: return .metadata
        case .wpt:
            sendMetadata()
            return .waypoint
        case .rte:
            sendMetadata()
            summary.routes += 1
            path = GPXPathInfo(index: summary.routes - 1, line: parser.line)
            pathAnnounced = false
            return .route
        case .trk:
            sendMetadata()
            summary.tracks += 1
            path = GPXPathInfo(index: summary.tracks - 1, line: parser.line)
            pathAnnounced = false
            trackExtensionsDropped = false
            return .track
        // GPX 1.0 keeps the file's description at the top level.
        case .name: return capture(.metadataName)
        case .desc: return capture(.metadataDescription)
        case .author: return capture(.metadataAuthor)
        case .time: return capture(.metadataTime)
        case .keywords: return capture(.metadataKeywords)
        default: return .ignored
        }
    }

    private func metadataChild(_ name: GPXName) -> Role {
        switch name {
        case .name: capture(.metadataName)
        case .desc: capture(.metadataDescription)
        case .time: capture(.metadataTime)
        case .keywords: capture(.metadataKeywords)
        case .author: .author
        default: .ignored
        }
    }

    private func pathChild(_ name: GPXName, inTrack: Bool) -> Role {
        switch name {
        case .name: return capture(.pathName)
        case .cmt: return capture(.pathComment)
        case .desc: return capture(.pathDescription)
        case .src: return capture(.pathSource)
        case .type: return capture(.pathType)
        case .number: return capture(.pathNumber)
        case .extensions where inTrack: return .trackExtensions
        case .trkseg where inTrack:
            announcePath(track: true)
            summary.segments += 1
            emit(.segmentStart)
            return .segment
        case .rtept where !inTrack:
            announcePath(track: false)
            return .routePoint
        default: return .ignored
        }
    }

    private func pointChild(_ name: GPXName) -> Role {
        switch name {
        case .ele: capture(.elevation)
        case .time: capture(.time)
        case .name: capture(.pointName)
        case .cmt: capture(.pointComment)
        case .desc: capture(.pointDescription)
        case .sym: capture(.symbol)
        case .type: capture(.pointType)
        case .hdop: capture(.hdop)
        case .vdop: capture(.vdop)
        case .pdop: capture(.pdop)
        case .sat: capture(.satellites)
        case .fix: capture(.fix)
        case .speed: capture(.speed)
        case .course: capture(.course)
        case .extensions: .pointExtensions
        default: .ignored
        }
    }

    /// A child of a point's `<extensions>` (or of a known container inside it). Unknown children
    /// of `<extensions>` itself are kept as XML text; unknown children of a known container are
    /// dropped (written back on their own they would lose their container).
    private func extensionChild(_ name: GPXName, namespace: GPXNamespace, isContainerChild: Bool) -> Role {
        switch (namespace, name) {
        case (.trackPointExtension, .trackPointExtension), (.garminGPXExtensions, .trackPointExtension):
            return .extensionContainer
        case (.trackPointExtension, .hr), (.gpxdata, .hr), (_, .heartrate): return capture(.heartRate)
        case (.trackPointExtension, .cad), (.gpxdata, .cadence): return capture(.cadence)
        case (.trackPointExtension, .atemp), (.gpxdata, .temp), (.garminGPXExtensions, .temperature):
            return capture(.airTemperature)
        case (.trackPointExtension, .wtemp): return capture(.waterTemperature)
        case (.trackPointExtension, .depth), (.garminGPXExtensions, .capitalDepth): return capture(.depth)
        case (.trackPointExtension, .speed): return capture(.speed)
        case (.trackPointExtension, .course): return capture(.course)
        // Unprefixed <speed> and <course> in <extensions> (older OsmAnd, others).
        case (_, .speed) where namespace.isGPX: return capture(.speed)
        case (_, .course) where namespace.isGPX: return capture(.course)
        case (.gpxdata, .distance): return capture(.distance)
        case (.powerExtension, .powerInWatts), (_, .power): return capture(.power)
        default: return isContainerChild ? .ignored : .fragment
        }
    }

    private func capture(_ wanted: Field) -> Role {
        field = wanted
        text.removeAll(keepingCapacity: true)
        return .field
    }

    private func sendMetadata() {
        guard !metadataSent else { return }
        metadataSent = true
        emit(.metadata(metadata))
    }

    /// Announces the track or route being read, once, with the fields read so far.
    private func announcePath(track: Bool) {
        guard !pathAnnounced else { return }
        pathAnnounced = true
        emit(track ? .trackStart(path) : .routeStart(path))
    }

    // MARK: - Points

    private func startPoint(attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?) {
        point = GPXPoint(latitude: .nan, longitude: .nan, line: parser.line)
        pointColumn = parser.column
        pointProblem = nil
        var latitudeText: String?
        var longitudeText: String?
        forEachAttribute(attributeCount, attributes) { attribute, value in
            if Self.equals(attribute, "lat") {
                if let latitude = GPXScalars.double(value) { point.latitude = latitude } else {
                    latitudeText = Self.quoted(value)
                }
            } else if Self.equals(attribute, "lon") {
                if let longitude = GPXScalars.double(value) { point.longitude = longitude } else {
                    longitudeText = Self.quoted(value)
                }
            }
        }
        if let latitudeText {
            pointProblem = "latitude \(latitudeText) is not a number"
        } else if point.latitude.isNaN {
            pointProblem = "the point has no lat attribute"
        } else if let longitudeText {
            pointProblem = "longitude \(longitudeText) is not a number"
        } else if point.longitude.isNaN {
            pointProblem = "the point has no lon attribute"
        } else if point.latitude == 100 || point.latitude == 200 {
            pointProblem = "latitude \(Self.number(point.latitude)) is an OpenTracks pause marker, not a position"
        } else if !(-90...90).contains(point.latitude) {
            pointProblem = "latitude \(Self.number(point.latitude)) is outside -90...90"
        } else if !(-180...180).contains(point.longitude) {
            pointProblem = "longitude \(Self.number(point.longitude)) is outside -180...180"
        }
    }

    private func finishPoint(_ role: Role) {
        if let problem = pointProblem {
            let reason = problem + "; the point was skipped"
            if options.strict {
                fail(.invalidValue(file: file, line: point.line, column: pointColumn, reason: problem))
            } else {
                summary.skipped.append(GPXSkip(line: point.line, column: pointColumn, reason: reason))
            }
            return
        }
        switch role {
        case .waypoint:
            summary.waypoints += 1
            emit(.waypoint(point))
        case .routePoint:
            summary.routePoints += 1
            emit(.routePoint(point))
        default:
            summary.trackPoints += 1
            emit(.trackPoint(point))
        }
    }

    // MARK: - Helpers

    private func forEachAttribute(
        _ count: Int, _ attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
        _ body: (UnsafePointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void
    ) {
        guard let attributes else { return }
        for index in 0..<count {
            let base = index * 5
            // Attributes in a namespace (xsi:schemaLocation...) are not GPX's.
            guard attributes[base + 2] == nil, let name = attributes[base], let start = attributes[base + 3],
                let end = attributes[base + 4]
            else { continue }
            body(name, UnsafeBufferPointer(start: start, count: end - start))
        }
    }

    @inline(__always)
    static func equals(_ name: UnsafePointer<UInt8>, _ expected: StaticString) -> Bool {
        let count = expected.utf8CodeUnitCount
        let bytes = expected.utf8Start
        for index in 0..<count where name[index] != bytes[index] { return false }
        return name[count] == 0
    }

    static func trimmedString(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let trimmed = GPXScalars.trimmed(bytes)
        return trimmed.isEmpty ? nil : String(decoding: trimmed, as: UTF8.self)
    }

    /// An attribute's text. libxml2, told not to substitute entities, hands `&amp;` (and `&#38;`)
    /// in attribute values over as `&#38;`, and a bare `&` cannot occur: so `&#38;` is `&`.
    static func attributeString(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let text = trimmedString(bytes) else { return nil }
        return bytes.contains(UInt8(ascii: "&")) ? text.replacing("&#38;", with: "&") : text
    }

    /// A value as written, quoted and shortened for a report.
    static func quoted(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let text = String(decoding: GPXScalars.trimmed(bytes), as: UTF8.self)
        return "'" + (text.count > 40 ? text.prefix(40) + "…" : text) + "'"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

extension GPXParseCore: XMLDocumentCore {
    var compressed: Bool {
        get { summary.compressed }
        set { summary.compressed = newValue }
    }
}
