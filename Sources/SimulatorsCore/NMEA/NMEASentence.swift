/// One NMEA 0183 sentence found in a line of a log, read as gpsd's packet reader reads logs:
///
/// - The sentence starts at the line's last `$` (or `!`, for AIS). Whatever comes before it is
///   noise: the tail of a sentence cut off when the recording began, or bytes of another protocol.
/// - It ends at the end of the line (trailing white space removed), and is printable ASCII
///   throughout; a line with other bytes in it is not a sentence.
/// - The address is three to ten capital letters and digits, starting with a letter: a talker and
///   a type (`GPGGA`, `GNRMC`, `BDGSA`...), or `P` and a maker's code (`PGRMF`, `PMTK001`).
/// - The checksum is optional, as in gpsd: a sentence without `*` is taken as it is; one with `*`
///   must end in two hexadecimal digits equal to the XOR of the bytes between `$` and `*`.
///
/// Lines beginning with `#` (comments in gpsd's regression logs and gpsfake logs), free text and
/// binary noise are not sentences.
struct NMEASentence {
    /// The sentence from `$` to the end of its checksum.
    var text: Substring
    /// The fields between `$` and `*`: the address first, then the data fields (often empty).
    var fields: [Substring]
    /// Whether it ends in a checksum (a right one: a wrong one makes no sentence).
    var hasChecksum: Bool

    /// `GPGGA`, `PGRMF`...
    var address: Substring { fields[0] }

    /// Whether a maker defined it (`$P...`): not standard NMEA.
    var isProprietary: Bool { text.first == "$" && address.first == "P" }

    /// `GGA`, `RMC`...: the address without its two-letter talker; empty for a proprietary sentence.
    var type: Substring { isProprietary ? "" : address.dropFirst(2) }

    /// The field at `index`, or an empty one past the last: NMEA leaves trailing fields out.
    subscript(index: Int) -> Substring {
        index < fields.count ? fields[index] : ""
    }

    /// The sentence in `line`, or `nil` when there is none (a comment has none, whatever it quotes).
    init?(line: Substring) {
        guard line.utf8.first(where: { !Self.isSpace($0) }) != UInt8(ascii: "#"),
              let start = line.utf8.lastIndex(where: { $0 == UInt8(ascii: "$") || $0 == UInt8(ascii: "!") }) else { return nil }
        var end = line.endIndex
        while end > start, let previous = line.utf8[line.utf8.index(before: end)...].first, Self.isSpace(previous) {
            end = line.utf8.index(before: end)
        }
        let text = line[start..<end]
        guard text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        let content = text.dropFirst()
        let body: Substring
        if let star = content.utf8.firstIndex(of: UInt8(ascii: "*")) {
            body = content[..<star]
            let written = content[content.utf8.index(after: star)...]
            guard written.utf8.count == 2, let checksum = UInt8(written, radix: 16),
                  checksum == body.utf8.reduce(0, ^) else { return nil }
        } else {
            body = content
        }
        hasChecksum = body.endIndex != content.endIndex
        let fields = body.split(separator: ",", omittingEmptySubsequences: false)
        let address = fields[0].utf8
        guard (3...10).contains(address.count), let first = address.first, Self.isCapital(first),
              address.allSatisfy({ Self.isCapital($0) || Self.isDigit($0) }) else { return nil }
        self.text = text
        self.fields = fields
    }

    /// The lines of `text`, split at CR and LF (empty ones left out), without Swift's work of
    /// finding characters: logs are ASCII, and large.
    static func lines(of text: String) -> some Sequence<Substring> {
        let utf8 = text.utf8
        var start = utf8.startIndex
        return AnySequence {
            AnyIterator {
                while start < utf8.endIndex {
                    let end = utf8[start...].firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) ?? utf8.endIndex
                    defer { start = end < utf8.endIndex ? utf8.index(after: end) : end }
                    if end > start { return Substring(utf8[start..<end]) }
                }
                return nil
            }
        }
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private static func isCapital(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
