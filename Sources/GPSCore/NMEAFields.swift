/// The parts of an NMEA 0183 sentence every writer of one shares: the fake receiver's fixes
/// (SimulatorsCore) and a navigator's XTE, RMB and APB (Navigation).
public enum NMEAFields {
    /// `$body*CS\r\n`, with the XOR checksum of `body`.
    public static func sentence(_ body: String) -> String {
        "$\(body)*\(TextBytes.hex(checksum(body), width: 2))\r\n"
    }

    /// The NMEA checksum: the XOR of every byte between `$` and `*`.
    public static func checksum(_ body: some StringProtocol) -> UInt8 {
        body.utf8.reduce(0, ^)
    }

    /// `ddmm.mmmmmm,N` (or `dddmm.mmmmmm,E` for a longitude, `degreesWidth` 3).
    public static func coordinate(_ value: Double, degreesWidth: Int, positive: String, negative: String) -> String {
        let magnitude = abs(value)
        var degrees = Int(magnitude)
        var minutes = ((magnitude - Double(degrees)) * 60 * 1e6).rounded() / 1e6
        if minutes >= 60 {
            degrees += 1
            minutes -= 60
        }
        let degreesText = TextBytes.padded(degrees, width: degreesWidth)
        let minutesText = TextBytes.fixed(minutes, decimals: 6)
        let zeros = String(repeating: "0", count: max(0, 9 - minutesText.count))
        return "\(degreesText)\(zeros)\(minutesText),\(value < 0 ? negative : positive)"
    }
}
