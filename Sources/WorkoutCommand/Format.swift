import Foundation
import LocationFacade
import GPSCore

/// How the `workout` command writes numbers, times and JSON.
enum Format {
    /// `2024-05-01 07:00:00Z`.
    static func dateTime(_ date: Date) -> String {
        let text = RFC3339.string(from: date, fractionDigits: 0)
        return text.replacingOccurrences(of: "T", with: " ")
    }

    /// `10.02 km`, or `850 m` under a kilometre; `? km` when unknown.
    static func distance(_ metres: Double?) -> String {
        guard let metres else { return "? km" }
        return metres < 1000 ? "\(Int(metres.rounded())) m" : String(format: "%.2f km", metres / 1000)
    }

    /// `1:02:05` (h:mm:ss).
    static func duration(_ seconds: TimeInterval) -> String {
        let total = Int(seconds.rounded())
        return String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
    }

    /// A number for JSON (to a thousandth), or null when unknown or not finite: JSON has no NaN
    /// or infinity.
    static func json(_ value: Double?) -> Any {
        guard let value, value.isFinite else { return NSNull() }
        return (value * 1000).rounded() / 1000
    }

    /// `object` as one line of JSON with sorted keys.
    ///
    /// `object` is built by this command from strings, numbers (through ``json(_:)``), `NSNull`,
    /// arrays and dictionaries; anything else is a mistake in the command, and stops it with a
    /// message naming what could not be written.
    static func jsonLine(_ object: [String: Any]) -> String {
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            return String(decoding: data, as: UTF8.self)
        } catch {
            preconditionFailure("workout: cannot write JSON for keys \(object.keys.sorted()): \(error)")
        }
    }
}
