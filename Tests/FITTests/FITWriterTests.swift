import FIT
import Foundation
import Testing
import TestSupport

/// Files our writer makes in the tests, in the shapes devices write and Garmin's encoder cannot
/// (big-endian definitions, compressed-timestamp headers, misaligned fields), read by our decoder
/// and, at test time, by Garmin's decoder and fitdecode.
@Suite struct FITWriterTests {
    /// A few records of a ride: a full timestamp, then compressed-timestamp headers (offsets from
    /// it, wrapping past 32 seconds), under a big-endian or little-endian definition.
    static func ride(bigEndian: Bool, compressed: Bool) -> [UInt8] {
        FITWriter.file { writer in
            writer.define(localType: 0, globalNumber: FITMessageNumber.fileID, fields: [
                FITFieldDefinition(number: 0, baseType: .enumeration), FITFieldDefinition(number: 1, baseType: .uint16),
                FITFieldDefinition(number: 4, baseType: .uint32),
            ], bigEndian: bigEndian)
            writer.write(localType: 0, values: [.integer(4), .integer(255), .integer(1_083_481_200)])
            // Local type 1: records with their own timestamp; 2: records timed by their header.
            let position = [FITFieldDefinition(number: 0, baseType: .sint32), FITFieldDefinition(number: 1, baseType: .sint32)]
            let samples = [FITFieldDefinition(number: 3, baseType: .uint8), FITFieldDefinition(number: 78, baseType: .uint32)]
            writer.define(localType: 1, globalNumber: FITMessageNumber.record,
                          fields: [FITFieldDefinition(number: 253, baseType: .uint32)] + position + samples, bigEndian: bigEndian)
            writer.define(localType: 2, globalNumber: FITMessageNumber.record, fields: position + samples, bigEndian: bigEndian)
            for second in 0..<40 {
                let values: [FITValue?] = [.integer(614_155_269 + Int64(second) * 500), .integer(-17_896), .integer(120 + Int64(second)), .integer(2_550 + Int64(second))]
                if compressed, second > 0 {
                    writer.write(localType: 2, values: values, timeOffset: UInt8((1_083_481_200 + second) % 32))
                } else {
                    writer.write(localType: 1, values: [.integer(1_083_481_200 + Int64(second))] + values)
                }
            }
        }
    }

    @Test(arguments: [(false, false), (true, false), (false, true), (true, true)])
    func bothByteOrdersAndCompressedTimestampsReadBack(bigEndian: Bool, compressed: Bool) throws {
        let (messages, summary) = try FITReader(options: FITReadOptions(strict: true)).messages(of: Self.ride(bigEndian: bigEndian, compressed: compressed))
        let records = messages.compactMap(FITRecord.init)
        #expect(records.count == 40)
        #expect(records.map(\.time) == (0..<40).map { 1_714_546_800 + Double($0) }, "times, across the 32-second wrap")
        #expect(records.map(\.heartRate) == (0..<40).map { 120 + Double($0) })
        #expect(abs((records.last?.altitude ?? 0) - 17.8) < 1e-9, "altitude: 1/5 m above -500 m")
        #expect(records.last?.latitude == FITSemicircles.degrees(614_155_269 + 39 * 500))
        #expect(messages.allSatisfy { $0.definition.isBigEndian == bigEndian })
        #expect(summary.compressedTimestampMessages == (compressed ? 39 : 0))
    }

    @Test(.enabled(if: FITPeers.isAvailable, "the FIT peers are not installed: run scripts/install-fit-peers"))
    func thePeersReadOurFilesAsWeDo() async throws {
        let folder = NSTemporaryDirectory() + "fit-writer-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var paths: [String: (bigEndian: Bool, compressed: Bool)] = [:]
        for (bigEndian, compressed) in [(false, false), (true, false), (false, true), (true, true)] {
            let path = folder + "/ride-\(bigEndian ? "be" : "le")-\(compressed ? "compressed" : "full").fit"
            _ = FileManager.default.createFile(atPath: path, contents: Data(Self.ride(bigEndian: bigEndian, compressed: compressed)))
            paths[path] = (bigEndian, compressed)
        }
        let peers = try await FITPeers.read(Array(paths.keys))
        for (path, shape) in paths {
            let peer = try #require(peers[path])
            let ours = FITReading.read(path, strict: true)
            #expect(peer.fitdecode.error == nil, "\(path): \(peer.fitdecode.error ?? "")")
            #expect(FITCorpusTests.same(ours.records, peer.fitdecode.records), "\(path): fitdecode reads other records")
            if shape.compressed {
                // Garmin's decoder does not read compressed-timestamp headers (it says so).
                #expect(peer.garmin.errors?.first?.contains("Compressed timestamp") == true)
            } else {
                #expect(peer.garmin.errors == [] && peer.garmin.integrity == true, "\(path): \(peer.garmin.errors ?? [])")
                #expect(FITCorpusTests.same(ours.records, peer.garmin.records), "\(path): Garmin's decoder reads other records")
            }
        }
    }

    @Test func everyBaseTypeHasItsInvalidValue() throws {
        let types = FITBaseType.allCases
        let fields = types.enumerated().map { FITFieldDefinition(number: UInt8($0.offset), baseType: $0.element, size: $0.element == .string || $0.element == .byte ? 4 : nil) }
        let valid: [FITValue?] = types.map { type in
            switch type {
            case .string: .string("abc")
            case .byte: .bytes([1, 2, 3, 4])
            case .float32, .float64: .float(1.5)
            case .sint8, .sint16, .sint32, .sint64: .integer(-5)
            default: .integer(7)
            }
        }
        func message(_ values: [FITValue?]) throws -> FITMessage {
            let bytes = FITWriter.file { writer in
                writer.define(localType: 3, globalNumber: 65_280, fields: fields)
                writer.write(localType: 3, values: values)
            }
            return try #require(try FITReader(options: FITReadOptions(strict: true)).messages(of: bytes).messages.first)
        }
        let invalid = try message([])
        for (index, type) in types.enumerated() {
            #expect(invalid.value(UInt8(index)) == nil, "\(type): written as invalid, read as none")
        }
        let read = try message(valid)
        for (index, type) in types.enumerated() {
            #expect(read.value(UInt8(index)) == valid[index], "\(type)")
        }
        // Out of range is written as invalid rather than wrapped.
        let wrapped = try message(types.map { _ in .integer(70_000) })
        #expect(wrapped.value(UInt8(types.firstIndex(of: .uint16)!)) == nil)
        #expect(wrapped.integer(UInt8(types.firstIndex(of: .uint32)!)) == 70_000)
    }

    @Test func arraysKeepTheirInvalidElementsAsNone() throws {
        let bytes = FITWriter.file { writer in
            writer.define(localType: 0, globalNumber: 65_281, fields: [FITFieldDefinition(number: 0, baseType: .uint16, size: 6)])
            writer.write(localType: 0, values: [.array([.integer(1), nil, .integer(3)])])
        }
        let message = try #require(try FITReader().messages(of: bytes).messages.first)
        #expect(message.value(0) == .array([.integer(1), nil, .integer(3)]))
        #expect(message.integer(0, index: 2) == 3 && message.integer(0, index: 1) == nil)
    }

    @Test func misalignedFieldsReadAsGarminsDecoderReadsThem() throws {
        // A uint32 given 1 byte (as Coros writes event.data) reads as that byte; given 6 bytes, as bytes.
        let bytes = FITWriter.file { writer in
            writer.define(localType: 0, globalNumber: FITMessageNumber.event, fields: [
                FITFieldDefinition(number: 3, baseType: .uint32, size: 1), FITFieldDefinition(number: 4, baseType: .uint32, size: 6),
            ])
            writer.write(localType: 0, values: [.integer(1), .bytes([1, 2, 3, 4, 5, 6])])
        }
        let message = try #require(try FITReader().messages(of: bytes).messages.first)
        #expect(message.integer(3) == 1 && FITEventMessage(message)?.isAutomatic == true)
        #expect(message.value(4) == .bytes([1, 2, 3, 4, 5, 6]))
    }
}
