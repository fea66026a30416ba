import FIT
import Foundation
import GPX
import GZipFiles
import TCX
import Testing
import Workout

// The examples of GPX, TCX, FIT and GZipFiles, as printed in their `///` comments and DocC
// articles, in functions that give them what they name. ReadmeTests checks that each example is
// here; the tests below run those that need nothing outside the process.

enum FormatsExamples {
    // GPX/GPXReader.swift
    static func gpxReader() throws {
        var totals = TrackStatistics()
        let summary = try GPXReader().read(fileAt: "ride.gpx.gz") { event in
            switch event {
            case .segmentStart: totals.startSegment()
            case .trackPoint(let point): totals.add(point)
            default: break
            }
        }
        print(summary.trackPoints, totals.distance, summary.skipped)
    }

    // GPX.docc/GPX.md
    static func gpxArticle() throws {
        let summary = try GPXReader().read(fileAt: "ride.gpx.gz") { event in
            if case let .trackPoint(point) = event { print(point.latitude, point.longitude) }
        }
        _ = summary
    }

    // GPX/GPXWriter.swift
    static func gpxWriter(_ start: Date, _ points: [GPXPoint]) -> [UInt8] {
        var bytes: [UInt8] = []
        GPXWriter.appendHeader(creator: "my-app", time: start, to: &bytes)
        GPXWriter.appendTrackStart(name: "Morning run", type: "running", to: &bytes)
        GPXWriter.appendSegmentStart(to: &bytes)
        for point in points { GPXWriter.appendTrackPoint(point, to: &bytes) }
        GPXWriter.appendSegmentEnd(to: &bytes)
        GPXWriter.appendTrackEnd(to: &bytes)
        GPXWriter.appendFooter(to: &bytes)
        return bytes
    }

    // TCX/TCXReader.swift
    static func tcxReader() throws {
        let summary = try TCXReader().read(fileAt: "run.tcx") { event in
            if case let .trackpoint(point) = event { print(point.time.date, point.heartRate ?? .nan) }
        }
        print(summary.activities, summary.trackpoints, summary.skipped)
    }

    // TCX/TCXWriter.swift
    static func tcxWriter(_ start: Date, _ lap: TCXLap, _ points: [TCXTrackpoint]) -> [UInt8] {
        var bytes: [UInt8] = []
        TCXWriter.appendHeader(to: &bytes)
        TCXWriter.appendActivityStart(sport: "Running", id: start, to: &bytes)
        TCXWriter.appendLapStart(lap, to: &bytes)            // a TCXLap with its totals
        TCXWriter.appendTrackStart(to: &bytes)
        for point in points { TCXWriter.appendTrackpoint(point, to: &bytes) }
        TCXWriter.appendTrackEnd(to: &bytes)
        TCXWriter.appendLapEnd(lap, to: &bytes)
        TCXWriter.appendActivityEnd(creator: "my-app", to: &bytes)
        TCXWriter.appendFooter(to: &bytes)
        return bytes
    }

    // FIT/FITReader.swift
    static func fitReader() throws {
        var records = 0
        let summary = try FITReader().read(fileAt: "ride.fit") { event in
            if case .message(let message) = event, message.globalNumber == FITMessageNumber.record { records += 1 }
        }
        print(records, summary.issues)
    }

    // FIT.docc/FIT.md
    static func fitArticle() throws {
        let summary = try FITReader().read(fileAt: "ride.fit") { event in
            guard case let .message(message) = event, let record = FITRecord(message) else { return }
            print(record.time ?? 0, record.latitude ?? .nan, record.heartRate ?? .nan)
        }
        _ = summary
    }

    // FIT/FITBaseType.swift
    @ExampleValues static func baseTypes() -> [Any] {
        FITBaseType(definitionByte: 0x86)     // .uint32
        FITBaseType.uint16.invalidBits        // 0xFFFF
    }

    // FIT/FITCRC.swift
    static func crc(_ headerBytes: [UInt8], _ dataBytes: [UInt8], _ storedCRC: UInt16) -> Bool {
        var crc = FITCRC()
        crc.update(headerBytes)
        crc.update(dataBytes)
        let matches = crc.value == storedCRC
        return matches
    }

    // FIT/FITMessage.swift
    static func message(_ message: FITMessage) {
        if message.globalNumber == FITMessageNumber.record, let beats = message.integer(3) {
            print("heart rate \(beats) at", message.timestamp ?? 0)
        }
    }

    // FIT/Activity/FITRecord.swift
    static func record(_ message: FITMessage) {
        if let record = FITRecord(message), let latitude = record.latitude, let longitude = record.longitude {
            print(latitude, longitude, record.heartRate ?? .nan)
        }
    }

    // FIT/Profile/FITSport.swift
    @ExampleValues static func subSports() -> [Any] {
        FITSubSport(rawValue: 6)?.isIndoor   // true: indoor_cycling
        FITSubSport.name(of: 7)               // "sub sport 7"
    }

    // FIT/Activity/FITSummaries.swift
    static func totals(_ message: FITMessage) {
        if let lap = FITTotals(message), let distance = lap.distance { print("lap: \(distance) m") }
    }

    // FIT/FITWriter.swift
    static func writer() throws -> [UInt8] {
        func encode(_ writer: inout FITWriter) {
            writer.define(localType: 0, globalNumber: FITMessageNumber.fileID, fields: [
                FITFieldDefinition(number: 0, baseType: .enumeration), FITFieldDefinition(number: 4, baseType: .uint32)])
            writer.write(localType: 0, values: [.integer(4), .integer(1_000_000_000)])
        }
        var measuring = FITWriter(dataSize: nil)
        encode(&measuring)
        var writer = FITWriter(dataSize: measuring.dataSize)
        encode(&writer)
        try writer.finish()          // throws if the two passes wrote different sizes
        let file = writer.takeBytes()
        return file
    }

    // FIT/FITWriter.swift
    static func writerFile() -> [UInt8] {
        let bytes = FITWriter.file { writer in
            writer.define(localType: 0, globalNumber: FITMessageNumber.fileID, fields: [FITFieldDefinition(number: 0, baseType: .enumeration)])
            writer.write(localType: 0, values: [.integer(4)])
        }
        return bytes
    }

    // GZipFiles/GZipReader.swift
    static func gzip() throws -> Int {
        let input = try GZipReader(path: "ride.fit.gz")
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let count = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }   // 0 at the end
        return count
    }

    // Workout/Model/TrackStatistics.swift
    static func trackStatistics(_ path: String) throws {
        var totals = TrackStatistics()
        _ = try GPXReader().read(fileAt: path) { event in
            if case .segmentStart = event { totals.startSegment() }
            if case .trackPoint(let point) = event { totals.add(point) }
        }
        print(totals.distance, totals.elevationGain, totals.movingTime)
    }
}

/// The examples that need nothing outside the process do what their comments say.
@Suite("API reference examples: file formats")
struct FormatsExampleTests {
    @Test func theFITExamplesGiveWhatTheySay() throws {
        let types = FormatsExamples.baseTypes()
        #expect(types.first as? FITBaseType == .uint32)
        #expect((types.last as? UInt64) == 0xFFFF)
        // Both ways of writing a file give the same FIT file, whose CRC checks.
        let file = try FormatsExamples.writer()
        #expect(file.count > 14)
        #expect(FormatsExamples.writerFile().count > 14)
        var decoded = 0
        _ = try FITReader().read(data: file, name: "example.fit") { event in
            if case .message = event { decoded += 1 }
        }
        #expect(decoded == 1)
    }
}
