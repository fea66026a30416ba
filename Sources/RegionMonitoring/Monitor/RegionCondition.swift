#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore

/// What a ``RegionMonitor`` watches for, as `CLMonitor`'s conditions: being in an area, staying
/// on a route, crossing a line, or an anchored boat staying within its swing.
public enum RegionCondition: Sendable, Hashable, Codable {
    /// Inside a circle: satisfied while the fixes prove the device within it.
    case circle(CircularRegion)
    /// Inside one of some polygons (a GeoJSON area).
    case polygon(PolygonalRegion)
    /// On a route: satisfied within the corridor, unsatisfied off course.
    case corridor(CorridorRegion)
    /// A line to cross: each crossing is a ``RegionEvent/Kind/cross`` event, dated by
    /// interpolation between the fixes either side, with its direction.
    case line(CrossingLine)
    /// An anchor's swing circle: leaving it is a ``RegionEvent/Kind/drag`` (see ``AnchorAlarm``).
    case anchor(CircularRegion)

    /// A circle of `radius` metres around `center`.
    ///
    /// - Throws: ``RegionGeometryError`` for a centre off the Earth or a radius that is not positive.
    public static func circle(center: GeoCoordinate, radius: Double) throws(RegionGeometryError) -> RegionCondition {
        .circle(try CircularRegion(center: center, radius: radius))
    }

    /// The box the condition lies in.
    public var boundingBox: GeoBoundingBox {
        switch self {
        case let .circle(circle), let .anchor(circle): circle.boundingBox
        case let .polygon(area): area.boundingBox
        case let .corridor(corridor): corridor.boundingBox
        case let .line(line): line.boundingBox
        }
    }

    /// Metres from `point` to the edge of the area, positive inside; `nil` for a line.
    public func signedDistance(from point: GeoCoordinate) -> Double? {
        switch self {
        case let .circle(circle), let .anchor(circle): circle.signedDistance(from: point)
        case let .polygon(area): area.signedDistance(from: point)
        case let .corridor(corridor): corridor.signedDistance(from: point)
        case .line: nil
        }
    }
}

/// Whether a condition holds, as `CLMonitor.Event.State`.
public enum RegionState: String, Sendable, Hashable, Codable {
    /// The fixes prove the device inside (on the route, within the swing).
    case satisfied
    /// The fixes prove it outside.
    case unsatisfied
    /// Not known: no fix has decided yet, or none usable has come for a while.
    case unknown
}

/// A change the fixes have proven, as `CLMonitor.Event`, with what decided it.
public struct RegionEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Now inside (also the first time a region is proven inside, as Android's initial enter).
        case enter
        /// Now outside, having been proven inside.
        case exit
        /// Inside for the rules' ``MonitoringRules/dwell`` time.
        case dwell
        /// A line was crossed.
        case cross
        /// An anchored boat left its swing circle.
        case drag
        /// No usable fix for the rules' ``MonitoringRules/unknownAfter`` time.
        case unknown
    }

    /// The region's identifier, as given to ``RegionMonitor/add(_:identifier:assuming:rules:)``.
    public var identifier: String
    /// The region's state after the event (for a crossing, ``RegionState/satisfied``: the line was crossed).
    public var state: RegionState
    public var kind: Kind
    /// When: the deciding fix's time; for a crossing, the moment interpolated between the fixes
    /// either side of the line; for ``Kind/unknown``, the moment the silence reached the limit.
    public var date: Date
    /// The fix that decided it (`nil` for ``Kind/unknown``).
    public var location: Location?
    /// With confirmation, the time of the first fix that pointed this way (the deciding fix's
    /// time when one fix decided).
    public var firstIndication: Date?
    /// For a crossing, which way.
    public var direction: CrossingDirection?

    public init(
        identifier: String, state: RegionState, kind: Kind, date: Date, location: Location? = nil,
        firstIndication: Date? = nil, direction: CrossingDirection? = nil
    ) {
        self.identifier = identifier
        self.state = state
        self.kind = kind
        self.date = date
        self.location = location
        self.firstIndication = firstIndication
        self.direction = direction
    }
}

/// What a monitor knows of one region, as `CLMonitor.Record`.
public struct RegionRecord: Sendable, Hashable {
    public var condition: RegionCondition
    /// The current state.
    public var state: RegionState
    /// The last state the fixes proved (it outlives a spell of ``RegionState/unknown``).
    public var provenState: RegionState?
    /// The latest event of the region, since the monitor was made.
    public var lastEvent: RegionEvent?
}
