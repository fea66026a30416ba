/// The identity of a track by its points: FNV-1a over each point's time (whole milliseconds),
/// latitude and longitude (1e-7°), in order. The GPX importer gives it to each track it imports,
/// and a recorded session to the points it counted, which are the points its GPX export holds:
/// importing that export again finds the session's workout.
struct TrackFingerprint: Sendable, Hashable {
    private(set) var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    private(set) var count = 0

    /// Adds the next point: `time` in seconds since 1970.
    mutating func add(time: Double, latitude: Double, longitude: Double) {
        mix(Int64((time * 1000).rounded()))
        mix(Int64((latitude * 1e7).rounded()))
        mix(Int64((longitude * 1e7).rounded()))
        count += 1
    }

    /// Adds the 8 bytes of `value`, lowest first.
    @inline(__always)
    private mutating func mix(_ value: Int64) {
        var bits = UInt64(bitPattern: value)
        for _ in 0..<8 {
            hash = (hash ^ (bits & 0xff)) &* 0x100_0000_01b3
            bits >>= 8
        }
    }

    /// The external id of the track: `gpx-track:HASH:COUNT` (whatever the format it came in: the
    /// same points make the same workout).
    var externalID: String {
        externalID(prefix: "gpx-track")
    }

    /// `PREFIX:HASH:COUNT`: for a fingerprint fed other values than positions (the samples of a
    /// workout without a route).
    func externalID(prefix: String) -> String {
        prefix + ":" + String(hash, radix: 16) + ":\(count)"
    }
}
