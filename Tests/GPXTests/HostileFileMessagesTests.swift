import Foundation
import GPX
import Testing

/// Files that are not GPX, or damaged compressed GPX, get a message that says what they are.
@Suite(.timeLimit(.minutes(1))) struct HostileFileMessagesTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gpx-hostile-\(UUID())")

    init() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    func error(reading path: String) -> GPXError? {
        do {
            _ = try GPXReader().read(fileAt: path) { _ in }
            return nil
        } catch {
            return error
        }
    }

    func gzip(_ text: String) throws -> [UInt8] {
        let plain = folder.appendingPathComponent("plain-\(UUID()).gpx")
        try text.write(to: plain, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-kf", plain.path]
        try process.run()
        process.waitUntilExit()
        return Array(try Data(contentsOf: URL(fileURLWithPath: plain.path + ".gz")))
    }

    static let walk = """
        <?xml version="1.0"?>
        <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
        \(String(repeating: #"<trkpt lat="1" lon="2"><time>2024-05-01T08:00:00Z</time></trkpt><!-- a comment to pad the file -->"# + "\n", count: 200))
        </trkseg></trk></gpx>
        """

    /// "Document is empty" for random bytes, a PNG or /dev/zero: it is not XML.
    @Test func bytesThatAreNotXMLAreSaidToBeNotXML() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 64)
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<4_096).map { _ in UInt8.random(in: 0x80...0xFF, using: &generator) }
        for path in [try write(png, "image.png"), try write(noise, "noise.gpx"), "/dev/zero"] {
            let message = error(reading: path).map { "\($0)" } ?? ""
            #expect(message.contains("it is not XML (it does not begin with markup), so not a GPX file"), "\(path): \(message)")
        }
    }

    /// "internal error: Huge input lookup": the limit hit is named.
    @Test func aMillionAttributesNameTheLimitHit() throws {
        let attributes = (0..<1_000_000).map { "a\($0)=\"1\"" }.joined(separator: " ")
        let path = try write(Array(#"<gpx xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="1" lon="1" \#(attributes)/></gpx>"#.utf8), "huge.gpx")
        let message = error(reading: path).map { "\($0)" } ?? ""
        #expect(message.contains("longer than libxml2's limit of 10,000,000 bytes"), "\(message)")
    }

    /// A truncated .gz said "Comment not terminated" (the XML cut short); a bad CRC was an
    /// unreadable file (exit 66). Both are damaged data, said so.
    @Test func damagedCompressedFilesSayWhatIsDamaged() throws {
        let gz = try gzip(Self.walk)
        let truncated = try write(Array(gz.prefix(gz.count / 2)), "truncated.gpx.gz")
        guard case let .malformed(_, line, _, reason)? = error(reading: truncated) else {
            Issue.record("not malformed: \(String(describing: error(reading: truncated)))")
            return
        }
        #expect(line == 0 && reason == "the compressed file is truncated: it ends before its gzip stream does")

        var badCRC = gz
        badCRC[badCRC.count - 6] ^= 0xFF  // in the CRC-32 of the trailer
        let damaged = try write(badCRC, "bad-crc.gpx.gz")
        guard case let .malformed(_, _, _, crcReason)? = error(reading: damaged) else {
            Issue.record("not malformed: \(String(describing: error(reading: damaged)))")
            return
        }
        #expect(crcReason == "the compressed data is damaged (incorrect data check)")
        #expect(error(reading: damaged)?.description == "\(damaged): the compressed data is damaged (incorrect data check)")
    }

    /// A folder: its path once, with the reason.
    @Test func aFolderIsNamedOnce() throws {
        #expect(error(reading: folder.path)?.description == "cannot read \(folder.path): Is a directory")
    }
}
