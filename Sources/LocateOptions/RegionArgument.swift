import ArgumentParser
import CommandSupport
import GPX
import RegionMonitoring

/// One `--region ID=KIND:VALUES` of `locate monitor` and `locate publish`, as written: checked when the command line is
/// parsed (exit 64 naming it); the files it names are read when the command runs (66 when one
/// cannot be opened, 65 when one is not what it should be).
package struct RegionArgument: Sendable {
    package enum Shape: Sendable {
        case circle(GeoCoordinate, radius: Double)
        case polygon(file: String)
        case corridor(file: String, halfWidth: Double)
        case line(GeoCoordinate, GeoCoordinate)
    }

    /// A rule of the region's own, after its values: `,dwell=S`, `,confirm=N`, `,hysteresis=M`,
    /// `,max-accuracy=M`.
    package enum Override: String, CaseIterable, Sendable {
        case dwell
        case confirm
        case hysteresis
        case maxAccuracy = "max-accuracy"
    }

    package let text: String
    package let identifier: String
    package let shape: Shape
    package let overrides: [(Override, Double)]

    package static let forms = "ID=circle:LAT,LON,RADIUS, ID=polygon:FILE.geojson, ID=corridor:FILE,HALFWIDTH or ID=line:LAT1,LON1,LAT2,LON2, each optionally followed by ,dwell=S ,confirm=N ,hysteresis=M or ,max-accuracy=M"

    /// The monitor's `rules` with this region's overrides, or `nil` when it has none.
    package func rules(over rules: MonitoringRules) -> MonitoringRules? {
        guard !overrides.isEmpty else { return nil }
        var result = rules
        for (override, value) in overrides {
            switch override {
            case .dwell: result.dwell = value > 0 ? .milliseconds(Int64(value * 1000)) : nil
            case .confirm: result.confirmation = .fixes(Int(value))
            case .hysteresis: result.hysteresis = value
            case .maxAccuracy: result.maximumAccuracy = value
            }
        }
        return result
    }

    /// Parses `text`, or says what is wrong with it (naming it).
    package init(parsing text: String) throws(ValidationError) {
        self.text = text
        func fail(_ reason: String) -> ValidationError {
            ValidationError("--region '\(text)': \(reason)")
        }
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw fail("expected \(Self.forms).")
        }
        identifier = String(text[..<equals])
        let rest = text[text.index(after: equals)...]
        guard let colon = rest.firstIndex(of: ":") else { throw fail("expected a kind after '=': \(Self.forms).") }
        let kind = rest[..<colon]
        var parts = rest[rest.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false)
        var overrides: [(Override, Double)] = []
        while let last = parts.last, let equals = last.firstIndex(of: "=") {
            guard let override = Override(rawValue: String(last[..<equals])) else {
                throw fail("'\(last[..<equals])' is not a rule a region can set: \(Override.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            guard let value = Double(last[last.index(after: equals)...]), value >= 0, value.isFinite,
                override != .confirm || (value >= 1 && value == value.rounded()),
                override != .maxAccuracy || value > 0
            else {
                throw fail("\(override.rawValue) takes \(override == .confirm ? "a whole number, 1 or more" : "a number, 0 or more"), not '\(last[last.index(after: equals)...])'.")
            }
            overrides.insert((override, value), at: 0)
            parts.removeLast()
        }
        self.overrides = overrides
        let values = parts.joined(separator: ",")
        func numbers(_ count: Int) throws(ValidationError) -> [Double] {
            let parts = values.split(separator: ",", omittingEmptySubsequences: false)
            let parsed = parts.compactMap { Double($0) }
            guard parts.count == count, parsed.count == count, parsed.allSatisfy(\.isFinite) else {
                throw fail("\(kind) takes \(count) numbers separated by commas, not '\(values)'.")
            }
            return parsed
        }
        func coordinate(_ latitude: Double, _ longitude: Double) throws(ValidationError) -> GeoCoordinate {
            let point = GeoCoordinate(latitude: latitude, longitude: longitude)
            guard point.isValid else { throw fail("\(latitude),\(longitude) is not a position (latitude within ±90, longitude within ±180).") }
            return point
        }
        switch kind {
        case "circle":
            let n = try numbers(3)
            guard n[2] > 0 else { throw fail("the radius must be a positive number of metres, not \(n[2]).") }
            shape = .circle(try coordinate(n[0], n[1]), radius: n[2])
        case "polygon":
            guard !values.isEmpty else { throw fail("polygon takes a GeoJSON file.") }
            shape = .polygon(file: values)
        case "corridor":
            guard let comma = values.lastIndex(of: ","), let halfWidth = Double(values[values.index(after: comma)...]),
                halfWidth > 0, halfWidth.isFinite, comma != values.startIndex
            else {
                throw fail("corridor takes a GPX or GeoJSON file and a half-width in metres: corridor:FILE,HALFWIDTH.")
            }
            shape = .corridor(file: String(values[..<comma]), halfWidth: halfWidth)
        case "line":
            let n = try numbers(4)
            let (a, b) = (try coordinate(n[0], n[1]), try coordinate(n[2], n[3]))
            guard a != b else { throw fail("a line's two ends must differ.") }
            shape = .line(a, b)
        default:
            throw fail("'\(kind)' is not a kind of region: \(Self.forms).")
        }
    }

    /// A file the region needs that could not be used, and the exit status it makes.
    package struct FileFailure: Error {
        package var message: String
        package var status: ExitStatus
    }

    /// The condition, reading the file the region names if any.
    package func condition() throws(FileFailure) -> RegionCondition {
        do {
            switch shape {
            case let .circle(center, radius):
                return .circle(try CircularRegion(center: center, radius: radius))
            case let .polygon(file):
                return .polygon(try GeoJSON.polygonalRegion(contentsOf: file))
            case let .corridor(file, halfWidth):
                return .corridor(try CorridorRegion(path: try Self.path(file), halfWidth: halfWidth))
            case let .line(a, b):
                return .line(try CrossingLine(from: a, to: b))
            }
        } catch let error as GeoJSONError {
            if case .cannotRead = error { throw FileFailure(message: "--region \(identifier): \(error)", status: .noInput) }
            throw FileFailure(message: "--region \(identifier): \(error)", status: .dataError)
        } catch let error as FileFailure {
            throw error
        } catch {
            throw FileFailure(message: "--region \(identifier): \(error)", status: .dataError)
        }
    }

    /// A route's positions: a GPX file's track points (else its route points), or a GeoJSON LineString.
    package static func path(_ file: String) throws -> [GeoCoordinate] {
        let lowered = file.lowercased()
        guard lowered.hasSuffix(".gpx") || lowered.hasSuffix(".gpx.gz") else {
            return try GeoJSON.lineString(contentsOf: file)
        }
        var track: [GeoCoordinate] = []
        var route: [GeoCoordinate] = []
        do {
            _ = try GPXReader().read(fileAt: file) { event in
                switch event {
                case let .trackPoint(point): track.append(GeoCoordinate(latitude: point.latitude, longitude: point.longitude))
                case let .routePoint(point): route.append(GeoCoordinate(latitude: point.latitude, longitude: point.longitude))
                default: break
                }
            }
        } catch {
            if case .unreadable = error { throw FileFailure(message: "--region: \(error)", status: .noInput) }
            throw FileFailure(message: "--region: \(error)", status: .dataError)
        }
        let path = track.isEmpty ? route : track
        guard path.count >= 2 else {
            throw FileFailure(message: "--region: \(file) holds no track or route of two points or more.", status: .dataError)
        }
        return path
    }
}
