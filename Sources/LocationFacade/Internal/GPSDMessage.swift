import Foundation

/// One report from gpsd, decoded into Swift terms.
enum GPSDMessage: Sendable, Equatable {
    /// A TPV report with a usable position (mode 2 or 3).
    case fix(Location)
    /// A TPV report without one (mode 0 or 1, or no latitude/longitude).
    case noFix(device: String?, time: Date?)
    /// A SKY report.
    case sky(SatelliteReport)
    /// The DEVICES report: every receiver gpsd knows.
    case devices([GPSDevice])
    /// A DEVICE report: one receiver appeared, changed or went away.
    case device(GPSDevice)
    /// The VERSION banner.
    case version(release: String)
    /// The answer to a WATCH request.
    case watch(enabled: Bool)
    /// The answer to `?POLL;`: the latest fix of each active device that has one.
    case poll(fixes: [Location])
    /// An ERROR report.
    case error(message: String)
    /// A report this client does not use (GST, ATT, PPS, TOFF, AIS...).
    case ignored(className: String)
    /// Not a report at all.
    case malformed(reason: String)
}

/// Byte-level checks on one line from gpsd, done before libgps sees it: libgps parses leniently
/// and reports no errors, so a truncated or garbage line would otherwise pass as a report.
package enum GPSDLine {
    /// The value of the line's `"class":"..."` member, or `nil` if it has none.
    package static func className(_ line: UnsafeBufferPointer<UInt8>) -> Substring? {
        stringMember(#""class":""#, in: line).map { Substring(decoding: UnsafeBufferPointer(rebasing: line[$0]), as: UTF8.self) }
    }

    /// Where the value of the first string member `pattern` (written `"name":"`) lies in `line`.
    /// gpsd writes its reports without spaces, and libgps reads them only that way.
    package static func stringMember(_ pattern: StaticString, in line: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let pattern = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
        guard let start = firstIndex(of: pattern, in: line, from: 0) else { return nil }
        let valueStart = start + pattern.count
        var end = valueStart
        while end < line.count, line[end] != UInt8(ascii: "\"") { end += 1 }
        guard end < line.count else { return nil }
        return valueStart..<end
    }

    /// Why `line` is not one complete JSON object, or `nil` if it is one: it must start with `{`,
    /// end with `}`, close every string, and balance its braces and brackets.
    package static func shapeProblem(_ line: UnsafeBufferPointer<UInt8>) -> String? {
        var start = 0
        var end = line.count
        while start < end, isSpace(line[start]) { start += 1 }
        while end > start, isSpace(line[end - 1]) { end -= 1 }
        guard start < end else { return "an empty line" }
        guard line[start] == UInt8(ascii: "{") else { return "not a JSON object" }
        // This runs on every report: most bytes are neither quotes, backslashes nor brackets, so a
        // table lookup settles each of them with one load and one branch.
        var depth = 0
        var inString = false
        var index = start
        let base = line.baseAddress!
        while index < end {
            let kind = Self.byteKinds[Int(base[index])]
            if kind != 0 {
                if inString {
                    if kind == Self.backslash {
                        index += 1
                    } else if kind == Self.quote {
                        inString = false
                    }
                } else if kind == Self.quote {
                    inString = true
                } else if kind == Self.opening {
                    depth += 1
                } else if kind == Self.closing {
                    depth -= 1
                    if depth == 0 && index != end - 1 { return "text after the end of the object" }
                    if depth < 0 { return "unbalanced brackets" }
                }
            }
            index += 1
        }
        if inString { return "an unterminated string" }
        if depth != 0 { return "a truncated object" }
        return nil
    }

    private static let quote: UInt8 = 1
    private static let backslash: UInt8 = 2
    private static let opening: UInt8 = 3
    private static let closing: UInt8 = 4
    private static let byteKinds: [UInt8] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "\""): quote
        case UInt8(ascii: "\\"): backslash
        case UInt8(ascii: "{"), UInt8(ascii: "["): opening
        case UInt8(ascii: "}"), UInt8(ascii: "]"): closing
        default: 0
        }
    }

    /// The byte ranges of the objects in the array member `name` (such as `"tpv"` in a POLL report).
    static func objectsInArray(named name: String, of line: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        let pattern = Array("\"\(name)\":[".utf8)
        guard var index = pattern.withUnsafeBufferPointer({ firstIndex(of: $0, in: line, from: 0) }) else { return [] }
        index += pattern.count
        var ranges: [Range<Int>] = []
        var depth = 0
        var objectStart = 0
        var inString = false
        var escaped = false
        while index < line.count {
            let byte = line[index]
            if inString {
                if escaped { escaped = false }
                else if byte == UInt8(ascii: "\\") { escaped = true }
                else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                if depth == 0 { objectStart = index }
                depth += 1
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                if depth == 0 { break }  // the end of the array
                depth -= 1
                if depth == 0 && byte == UInt8(ascii: "}") { ranges.append(objectStart..<(index + 1)) }
            }
            index += 1
        }
        return ranges
    }

    /// Whether the line has a member called `name`.
    static func hasMember(_ name: String, in line: UnsafeBufferPointer<UInt8>) -> Bool {
        let pattern = Array("\"\(name)\":".utf8)
        return pattern.withUnsafeBufferPointer { firstIndex(of: $0, in: line, from: 0) } != nil
    }

    /// The first `maximum` characters of `line`, for error messages.
    static func excerpt(_ line: UnsafeBufferPointer<UInt8>, maximum: Int = 80) -> String {
        let text = String(decoding: UnsafeBufferPointer(rebasing: line[0..<min(line.count, maximum)]), as: UTF8.self)
        let printable = text.map { $0.isASCII && ($0.asciiValue! < 0x20 || $0.asciiValue! == 0x7F) ? "?" : $0 }
        return String(printable) + (line.count > maximum ? "..." : "")
    }

    /// The first position of `pattern` in `line` at or after `from`.
    package static func firstIndex(of pattern: UnsafeBufferPointer<UInt8>, in line: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard pattern.count <= line.count else { return nil }
        let first = pattern[0]
        var index = from
        let last = line.count - pattern.count
        while index <= last {
            if line[index] == first {
                var matched = 1
                while matched < pattern.count, line[index + matched] == pattern[matched] { matched += 1 }
                if matched == pattern.count { return index }
            }
            index += 1
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

/// Decodes gpsd JSON reports into the events a source reports, with libgps's parser: for the
/// replay devices in Simulators, which read recorded gpsd logs. Not thread-safe: one per thread.
package final class GPSDReportDecoder {
    private let decoder = LibGPSDecoder()

    package init() {}

    /// The event `line` stands for (a fix, a no-fix report, a satellite report), or `nil` for a
    /// report a location source does not pass on.
    package func event(for line: String, receivedAt: Date) -> LocationEvent? {
        switch decoder.decode(line, receivedAt: receivedAt) {
        case let .fix(location): .location(location)
        case let .noFix(device, time): .noFix(device: device, time: time)
        case let .sky(report): .satellites(report)
        default: nil
        }
    }
}
