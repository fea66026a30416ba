#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocationCore

/// An anchor watch: where the anchor lies and how far the boat may swing round it. Its
/// ``condition`` in a ``RegionMonitor`` raises a ``RegionEvent/Kind/drag`` when the fixes prove
/// the boat outside the swing circle, and a ``RegionEvent/Kind/unknown`` (the no-fix alarm) when
/// no usable fix has come for the rules' time. It makes no ``RegionEvent/Kind/dwell`` (a boat at
/// anchor is meant to stay) unless rules given for it alone ask for one.
///
/// ```swift
/// let alarm = try AnchorAlarm(droppedAt: fix, swingRadius: AnchorAlarm.swingRadius(rode: 50, depth: 8))
/// monitor.add(alarm.condition, identifier: "anchor", assuming: .satisfied)
/// print(alarm.distance(from: fix), alarm.bearing(from: fix))   // metres, degrees to the anchor
/// ```
public struct AnchorAlarm: Sendable, Hashable {
    /// Where the anchor lies.
    public let anchor: GeoCoordinate
    /// Metres from the anchor the boat (its receiver) may be before it is dragging.
    public let swingRadius: Double
    /// The swing circle, checked when the alarm was made.
    private let circle: CircularRegion

    /// The margin ``swingRadius(rode:depth:margin:)`` adds by default: 10 m, for the boat's length
    /// from bow roller to receiver and the rode's stretch.
    public static let defaultMargin = 10.0

    /// The swing radius of `rode` metres of rode in `depth` metres of water (from the bow roller to
    /// the bottom): the horizontal reach `√(rode² − depth²)`, plus `margin`.
    ///
    /// ```swift
    /// AnchorAlarm.swingRadius(rode: 50, depth: 8)   // 49.4 + 10 m
    /// ```
    public static func swingRadius(rode: Double, depth: Double, margin: Double = defaultMargin) -> Double {
        (max(0, rode * rode - depth * depth)).squareRoot() + margin
    }

    /// An anchor at `anchor`, watched with `swingRadius` metres of swing.
    ///
    /// - Throws: ``RegionGeometryError`` for a position off the Earth or a radius that is not positive.
    public init(anchor: GeoCoordinate, swingRadius: Double) throws(RegionGeometryError) {
        circle = try CircularRegion(center: anchor, radius: swingRadius)
        self.anchor = anchor
        self.swingRadius = swingRadius
    }

    /// The anchor dropped where `fix` is, or `distance` metres from it at `bearing` degrees (where
    /// the bow is, or where the anchor was seen to go down).
    public init(droppedAt fix: Location, bearing: Double = 0, distance: Double = 0, swingRadius: Double) throws(RegionGeometryError) {
        let here = GeoCoordinate(latitude: fix.latitude, longitude: fix.longitude)
        try self.init(anchor: distance == 0 ? here : here.destination(bearing: bearing, distance: distance), swingRadius: swingRadius)
    }

    /// The condition to watch: the swing circle, whose leaving is a drag.
    public var condition: RegionCondition {
        .anchor(circle)
    }

    /// Metres from `fix` to the anchor.
    public func distance(from fix: Location) -> Double {
        GeoCoordinate(latitude: fix.latitude, longitude: fix.longitude).distance(to: anchor)
    }

    /// The bearing in degrees (0..<360 from true north) from `fix` to the anchor.
    public func bearing(from fix: Location) -> Double {
        GeoCoordinate(latitude: fix.latitude, longitude: fix.longitude).bearing(to: anchor)
    }
}
