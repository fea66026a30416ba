import FIT
import Foundation
import Testing
import TestSupport

/// The protocol, case by case, on files Garmin's own encoder wrote (`fixtures/fit/garmin-sdk-*.fit`,
/// made by scripts/make-fit-fixtures) and on bytes cut, flipped and chained from them.
@Suite struct FITReaderTests {
    static let run = Repository.fixture("fit/garmin-sdk-run.fit").path
    static var runBytes: [UInt8] { Array(FileManager.default.contents(atPath: run)!) }

    @Test func aFileGarminsEncoderWroteReadsWhole() throws {
        var headers: [FITFileHeader] = []
        var records: [FITRecord] = []
        var ended: [FITFileHeader] = []
        let summary = try FITReader(options: FITReadOptions(strict: true)).read(fileAt: Self.run) { event in
            switch event {
            case let .fileStart(header): headers.append(header)
            case let .message(message): if let record = FITRecord(message) { records.append(record) }
            case let .fileEnd(header): ended.append(header)
            }
        }
        let header = try #require(headers.first)
        #expect(header.size == 14 && header.protocolMajorVersion == 2 && header.headerCRC != 0)
        #expect(header.dataSize == Self.runBytes.count - 16)
        #expect(ended.map(\.fileCRCMatches) == [true])
        #expect(summary.issues.isEmpty && !summary.compressed && summary.bytes == Self.runBytes.count)
        #expect(records.count == 101)
        let first = try #require(records.first)
        #expect(first.time == 1_714_546_800)
        #expect(first.latitude == FITSemicircles.degrees(614_155_269), "semicircles to degrees, exactly")
        #expect(first.heartRate == 120 && first.cadence == 85.5 && first.temperature == 18 && first.speed == 3)
        #expect(first.altitude == 10 && first.power == nil, "no native power: the invalid value reads as none")
        #expect(records.filter { !$0.hasPosition }.map(\.time) == [1_714_546_900], "the record without a position is kept")
    }

    @Test func developerFieldsComeWithTheirDescriptions() throws {
        let (messages, _) = try FITReader().messages(of: Self.runBytes)
        let record = try #require(messages.first { $0.globalNumber == FITMessageNumber.record })
        let values = record.developerValues
        #expect(values.map { $0.field.description?.name } == ["Form Power", "Power"])
        #expect(values.map { $0.field.description?.units } == ["Watts", "Watts"])
        #expect(values[1].field.description?.nativeMessage == FITMessageNumber.record && values[1].field.description?.nativeField == 7)
        #expect(values.map(\.scaledNumber) == [40, 250])
    }

    @Test func aChainOfFilesReadsFileByFileWithTheirOwnDefinitions() throws {
        let second = Array(FileManager.default.contents(atPath: Repository.fixture("fit/garmin-sdk-no-records.fit").path)!)
        var starts: [Int] = []
        var ends: [Bool?] = []
        var fileIndexes = Set<Int>()
        let summary = try FITReader(options: FITReadOptions(strict: true)).read(data: Self.runBytes + second, name: "chain.fit") { event in
            switch event {
            case let .fileStart(header): starts.append(header.offset)
            case let .message(message): fileIndexes.insert(message.fileIndex)
            case let .fileEnd(header): ends.append(header.fileCRCMatches)
            }
        }
        #expect(starts == [0, Self.runBytes.count])
        #expect(ends == [true, true])
        #expect(fileIndexes == [0, 1])
        #expect(summary.files.count == 2)

        // A data message in the second file under a local type only the first defined.
        var broken = Self.runBytes + [UInt8](second.prefix(14))
        broken.append(0x00)  // a data message header, local type 0, with no definition in this file
        let reading = try FITReader().read(data: broken, name: "chain.fit") { _ in }
        #expect(reading.issues.map(\.offset) == [Self.runBytes.count + 14])
        #expect(reading.issues.first?.description.contains("no definition message gave") == true)
    }

    @Test(arguments: [15, 200, 1_000, 3_900, 3_921])
    func aFileCutShortKeepsWhatCameBeforeAndSaysWhere(length: Int) throws {
        let cut = Array(Self.runBytes.prefix(length))
        var records = 0
        let summary = try FITReader().read(data: cut, name: "cut.fit") { event in
            if case let .message(message) = event, message.globalNumber == FITMessageNumber.record { records += 1 }
        }
        let issue = try #require(summary.issues.first)
        guard case let .truncated(file, offset, _) = issue.error else {
            Issue.record("not reported as truncated: \(issue)")
            return
        }
        #expect(file == "cut.fit" && offset <= length && offset >= length - 200)
        #expect(records <= 101 && (length < 3_900 || records == 101))
        #expect(throws: FITError.self) { try FITReader(options: FITReadOptions(strict: true)).read(data: cut, name: "cut.fit") { _ in } }
    }

    @Test func aBadFileCRCIsReadWithAnIssueAndRefusedWhenStrict() throws {
        var bytes = Self.runBytes
        bytes[bytes.count - 1] ^= 0x5A
        let (messages, summary) = try FITReader().messages(of: bytes, name: "crc.fit")
        #expect(messages.count == (try FITReader().messages(of: Self.runBytes)).messages.count)
        #expect(summary.files.first?.fileCRCMatches == false)
        #expect(summary.issues.map(\.offset) == [bytes.count - 2])
        #expect(summary.issues.first?.description.contains("bad CRC") == true)
        #expect {
            try FITReader(options: FITReadOptions(strict: true)).read(data: bytes, name: "crc.fit") { _ in }
        } throws: { error in
            guard let error = error as? FITError, case let .badCRC(file, offset, _) = error else { return false }
            return file == "crc.fit" && offset == bytes.count - 2
        }
    }

    @Test func aBadHeaderCRCIsReportedAtByteZero() throws {
        var bytes = Self.runBytes
        bytes[12] ^= 0xFF
        let (_, summary) = try FITReader().messages(of: bytes)
        // The header's CRC is part of the file's: both disagree now.
        #expect(summary.issues.map(\.offset) == [0, bytes.count - 2])
        #expect(summary.issues.first?.description.contains("header's CRC") == true)
    }

    @Test(arguments: [
        ([], "the file is empty"),
        (Array("<?xml version=\"1.0\"?><gpx/>".utf8), "header"),
        (Array(runBytesPrefix(11)), "too few"),
        ([12, 16, 0, 0, 0, 0, 0, 0, 0x2E, 0x47, 0x49, 0x54], "\".FIT\""),
        ([4, 16, 0, 0, 0, 0, 0, 0, 0x2E, 0x46, 0x49, 0x54], "header size is 4"),
    ] as [([UInt8], String)])
    func anythingElseIsRefusedAsNotFIT(bytes: [UInt8], says: String) {
        #expect {
            try FITReader().read(data: bytes, name: "other.bin") { _ in }
        } throws: { error in
            guard let error = error as? FITError, case let .notFIT(file, reason) = error else { return false }
            return file == "other.bin" && reason.contains(says)
        }
    }

    static func runBytesPrefix(_ count: Int) -> ArraySlice<UInt8> { runBytes.prefix(count) }

    @Test func aGzippedFileReadsAsThePlainOne() throws {
        let gz = NSTemporaryDirectory() + "fit-tests-\(UUID().uuidString).fit.gz"
        defer { try? FileManager.default.removeItem(atPath: gz) }
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -c '\(Self.run)' > '\(gz)'"]
        try gzip.run()
        gzip.waitUntilExit()
        var plain = 0, compressed = 0
        _ = try FITReader().read(fileAt: Self.run) { if case .message = $0 { plain += 1 } }
        let summary = try FITReader().read(fileAt: gz) { if case .message = $0 { compressed += 1 } }
        #expect(compressed == plain && summary.compressed && summary.issues.isEmpty)
    }

    /// A new path under the temporary folder, removed when `body` returns.
    static func withTemporaryFile<T>(_ name: String, _ body: (String) throws -> T) throws -> T {
        let path = NSTemporaryDirectory() + "fit-tests-\(UUID().uuidString)-" + name
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + ".gz")
        }
        return try body(path)
    }

    /// What `gzip -n -c` makes of `bytes`.
    static func gzipped(_ bytes: [UInt8]) throws -> [UInt8] {
        try withTemporaryFile("plain.fit") { plain in try gzip(bytes, plain) }
    }

    private static func gzip(_ bytes: [UInt8], _ plain: String) throws -> [UInt8] {
        try Data(bytes).write(to: URL(fileURLWithPath: plain))
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -n -c '\(plain)' > '\(plain).gz'"]
        try gzip.run()
        gzip.waitUntilExit()
        return Array(try Data(contentsOf: URL(fileURLWithPath: plain + ".gz")))
    }

    /// Damage done to a .fit.gz.
    enum GzipDamage: String, CaseIterable, Sendable {
        case cutInTheMiddle, cutBeforeItsTrailer, itsChecksumWrong

        func apply(to gz: [UInt8]) -> [UInt8] {
            switch self {
            case .cutInTheMiddle: Array(gz.prefix(gz.count / 2))
            case .cutBeforeItsTrailer: Array(gz.dropLast(8))
            case .itsChecksumWrong: gz.enumerated().map { $0.offset == gz.count - 6 ? ~$0.element : $0.element }
            }
        }
    }

    /// 400 copies of the run, chained: 1.5 MB, more than zlib inflates in one go (a wrong checksum
    /// loses what it inflated last; what came before is read).
    static let longChain = Array(repeating: runBytes, count: 400).flatMap { $0 }

    /// A .fit.gz cut off (or damaged) partway reads as a cut .fit does: what its gzip data inflates
    /// to, with the issue at the offset the FIT data stops at (it said "byte 0" and read nothing).
    @Test(arguments: GzipDamage.allCases)
    func aDamagedFITGzReadsAsFarAsItInflates(_ damage: GzipDamage) throws {
        try Self.withTemporaryFile("ride.fit.gz") { path in
            try readsAsFarAsItInflates(damage.rawValue, Data(damage.apply(to: try Self.gzipped(Self.longChain))), at: path)
        }
    }

    private func readsAsFarAsItInflates(_ damage: String, _ bytes: Data, at path: String) throws {
        try bytes.write(to: URL(fileURLWithPath: path))
        var offsets: [Int] = []
        let summary = try FITReader().read(fileAt: path) { event in
            if case let .message(message) = event { offsets.append(message.offset) }
        }
        let (plain, _) = try FITReader().messages(of: Self.longChain)
        let issue = try #require(summary.issues.first, "\(damage): no issue")
        #expect(summary.issues.count == 1 && summary.compressed, "\(damage): \(summary.issues)")
        #expect(issue.offset > 0 && issue.offset <= Self.longChain.count, "\(damage): \(issue)")
        #expect(!offsets.isEmpty && offsets == plain.map(\.offset).filter { $0 < issue.offset }, "\(damage): the messages before it, as the plain file has them")
        #expect(issue.description.contains("the compressed "), "\(damage): \(issue)")
        #expect(throws: issue.error, "\(damage): strict refuses it at the same offset") {
            try FITReader(options: FITReadOptions(strict: true)).read(fileAt: path) { _ in }
        }
    }

    @Test func aMissingFileOrAFolderCannotBeRead() {
        for path in ["/nonexistent/ride.fit", NSTemporaryDirectory()] {
            #expect {
                try FITReader().read(fileAt: path) { _ in }
            } throws: { error in
                guard let error = error as? FITError, case let .unreadable(file, _) = error else { return false }
                return file == path
            }
        }
    }
}
