import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import GPX
import LocationFacade

/// How `locate once` prints a fix: `text`, `json`, `geojson`, `gpx`, or a template with tokens
/// such as `%latitude %longitude %altitude %speed %course %h_accuracy %time`.
enum LocationFormat: Equatable, Sendable {
    case text
    case json
    case geojson
    case gpx
    case template([TemplatePart])

    enum TemplatePart: Equatable, Sendable {
        case literal(String)
        case field(Location.CodingKeys)
    }

    /// The formats with a name, each with what it prints.
    static let named: KeyValuePairs<String, (format: LocationFormat, description: String)> = [
        "text": (.text, "latitude and longitude: LAT LON"),
        "json": (.json, "one line of Location's JSON form"),
        "geojson": (.geojson, "a GeoJSON Feature: a Point whose properties are Location's JSON keys"),
        "gpx": (.gpx, "a GPX 1.1 document with the fix as its one waypoint"),
    ]

    /// The tokens a template may use: `%` and one of Location's JSON keys.
    static var tokens: [String] { Location.CodingKeys.allCases.map { "%" + $0.stringValue } }

    /// A template with a token that is not a field, such as `%lat`.
    struct ParseError: Error, CustomStringConvertible {
        /// The token, as given.
        var token: String

        var description: String {
            """
            '\(token)' is not a field; use \(LocationFormat.named.map(\.key).joined(separator: ", ")), or a template of \
            \(LocationFormat.tokens.joined(separator: " ")) (%% for a percent sign).
            """
        }
    }

    /// Parses `--format`'s argument. Anything other than the four names is a template; `%%` is a
    /// percent sign and `\n`, `\t` are a newline and a tab. Throws ``ParseError`` naming a token
    /// that is not a field.
    init(parsing text: String) throws(ParseError) {
        if let named = Self.named.first(where: { $0.key == text }) {
            self = named.value.format
        } else {
            self = .template(try Self.parseTemplate(text))
        }
    }

    /// The argument that gives this format: its name, or the template (with `%%` for a percent
    /// sign, and `\n`, `\t` for a newline and a tab).
    var argument: String {
        if let named = Self.named.first(where: { $0.value.format == self }) { return named.key }
        guard case let .template(parts) = self else { return "" }
        return parts.map { part in
            switch part {
            case let .literal(text):
                text.replacing("%", with: "%%").replacing("\n", with: "\\n").replacing("\t", with: "\\t")
            case let .field(key):
                "%" + key.stringValue
            }
        }.joined()
    }

    private static func parseTemplate(_ text: String) throws(ParseError) -> [TemplatePart] {
        var parts: [TemplatePart] = []
        var literal = ""
        var index = text.startIndex
        let keys = Location.CodingKeys.allCases.sorted { $0.stringValue.count > $1.stringValue.count }
        while index < text.endIndex {
            let character = text[index]
            if character == "\\", text.index(after: index) < text.endIndex {
                let next = text[text.index(after: index)]
                if next == "n" || next == "t" {
                    literal.append(next == "n" ? "\n" : "\t")
                    index = text.index(index, offsetBy: 2)
                    continue
                }
            }
            guard character == "%" else {
                literal.append(character)
                index = text.index(after: index)
                continue
            }
            let rest = text[text.index(after: index)...]
            if rest.hasPrefix("%") {
                literal.append("%")
                index = text.index(index, offsetBy: 2)
                continue
            }
            guard let key = keys.first(where: { rest.hasPrefix($0.stringValue) }) else {
                throw ParseError(token: "%" + rest.prefix { $0.isLetter || $0 == "_" })
            }
            if !literal.isEmpty {
                parts.append(.literal(literal))
                literal = ""
            }
            parts.append(.field(key))
            index = text.index(index, offsetBy: 1 + key.stringValue.count)
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return parts
    }

    /// `location` in this format, without a final newline.
    func render(_ location: Location) -> String {
        switch self {
        case .text:
            "\(location.latitude) \(location.longitude)"
        case .json:
            location.jsonLine
        case .geojson:
            Self.geoJSON(location)
        case .gpx:
            Self.gpx(location)
        case let .template(parts):
            parts.map { part in
                switch part {
                case let .literal(text): text
                case let .field(key): Self.value(of: key, in: location) ?? ""
                }
            }.joined()
        }
    }

    /// A field as text: numbers in full, times in RFC 3339, absent values as nothing.
    static func value(of key: Location.CodingKeys, in location: Location) -> String? {
        func number(_ value: Double?) -> String? { value.map { "\($0)" } }
        return switch key {
        case .latitude: number(location.latitude)
        case .longitude: number(location.longitude)
        case .altitude: number(location.altitude)
        case .ellipsoidalAltitude: number(location.ellipsoidalAltitude)
        case .horizontalAccuracy: number(location.horizontalAccuracy)
        case .verticalAccuracy: number(location.verticalAccuracy)
        case .speed: number(location.speed)
        case .speedAccuracy: number(location.speedAccuracy)
        case .course: number(location.course)
        case .courseAccuracy: number(location.courseAccuracy)
        case .climb: number(location.climb)
        case .time: location.time.map { RFC3339.string(from: $0) }
        case .receivedAt: RFC3339.string(from: location.receivedAt)
        case .mode: location.mode.rawValue
        case .status: location.status?.rawValue
        case .device: location.device
        case .isSimulated: "\(location.isSimulated)"
        }
    }

    /// A GeoJSON Feature: a Point (with altitude when known) whose properties are the Location keys.
    static func geoJSON(_ location: Location) -> String {
        var coordinates = "\(location.longitude),\(location.latitude)"
        if let altitude = location.altitude { coordinates += ",\(altitude)" }
        return #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(coordinates)]},"properties":\#(location.jsonLine)}"#
    }

    /// A GPX 1.1 document with the fix as one waypoint (``GPXWriter``).
    static func gpx(_ location: Location) -> String {
        var bytes: [UInt8] = []
        GPXWriter.appendHeader(creator: "locate (swift-gps-facade)", to: &bytes)
        let point = GPXPoint(
            latitude: location.latitude, longitude: location.longitude, elevation: location.altitude,
            time: location.time.map { GPXTime(date: $0) }, fix: location.status == .dgps ? "dgps" : location.mode.rawValue)
        let source = location.isSimulated ? "simulated" : location.device.map { "gpsd \($0)" } ?? "gpsd"
        GPXWriter.appendWaypoint(point, source: source, to: &bytes)
        GPXWriter.appendFooter(to: &bytes)
        return String(decoding: bytes.dropLast(), as: UTF8.self)  // without the final newline: the caller prints a line
    }
}

/// `locate once --format`: help lists the four names with what each prints, and completes them.
extension LocationFormat: ExpressibleByArgument {
    /// The format `argument` names, or nil for a template with a token that is not a field
    /// (``init(parsing:)`` says which).
    init?(argument: String) {
        try? self.init(parsing: argument)  // ArgumentParser wants nil; init(parsing:) says which token
    }

    static var allValueStrings: [String] { named.map(\.key) }

    static var allValueDescriptions: [String: String] {
        Dictionary(uniqueKeysWithValues: named.map { ($0.key, $0.value.description) })
    }

    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }

    var defaultValueDescription: String { argument }
}
