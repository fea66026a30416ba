import Foundation
import RegionMonitoring
import Testing
import TestSupport

/// GeoJSON is read as RFC 8259 JSON, strictly: what Python's `json` refuses (trailing commas,
/// leading zeros, control characters in strings, bad escapes, bytes that are not UTF-8) is refused
/// too, naming what is wrong and where; what it takes is read. `JSONDecoder` took the trailing
/// commas, the control characters and the lone surrogates. Python's answers come from
/// `scripts/peers/json_peer.py` (its standard library only), all texts in one process.
@Suite("GeoJSON is JSON as Python's json reads it", .tags(.childProcess))
struct GeoJSONStrictnessTests {
    /// A Feature whose properties' `v` is `value` and whose polygon ring is `ring`.
    static func feature(value: String = "1", ring: String = "[[10.0,53.5],[10.1,53.5],[10.1,53.6],[10.0,53.5]]") -> String {
        #"{"type":"Feature","properties":{"v":\#(value)},"geometry":{"type":"Polygon","coordinates":[\#(ring)]}}"#
    }

    /// Texts that are not JSON, and that Python's json refuses.
    static let invalid: [[UInt8]] = ([
        // The user's ring: a comma after its last position.
        feature(ring: "[[10.0,53.5],[10.1,53.5],[10.1,53.6],[10.0,53.5],]"),
        feature(value: #"{"name":"dock",}"#),
        feature(value: "[1,,2]"),
        feature(value: "[,1]"),
        // Numbers as JSON does not write them.
        feature(ring: "[[010.0,53.5],[10.1,53.5],[10.1,53.6],[010.0,53.5]]"),
        feature(value: "-01"), feature(value: "00"), feature(value: "1."), feature(value: ".5"), feature(value: "+1"),
        feature(value: "1e"), feature(value: "1e+"), feature(value: "-"), feature(value: "0x1F"),
        // Control characters unescaped in a string.
        feature(value: "\"a\tb\""), feature(value: "\"line\nbreak\""), feature(value: "\"\u{1}\""), feature(value: "\"\u{1F}\""),
        // Escapes JSON does not have.
        feature(value: #""\x41""#), feature(value: #""\'""#), feature(value: #""\u12""#), feature(value: #""\U0041""#), feature(value: #""\ ""#),
        // Not JSON's words or quotes, comments, text after the value.
        feature(value: "True"), feature(value: "None"), feature(value: "nul"), feature(value: "'single'"), #"{type:"Polygon"}"#,
        feature() + " // a comment", "/* a comment */ " + feature(), feature() + " {}", feature() + "]",
        // Not closed, or nothing at all; white space JSON does not have.
        String(feature().dropLast()), #"{"type":"Polygon","coordinates":[[[10.0,53.5]]]"#, #"{"type":"Feature","properties":{"v":"abc}}"#,
        "", "   ", feature(value: "[1,\u{C}2]"), feature(value: "[1,\u{A0}2]"),
    ] as [String]).map { Array($0.utf8) } + [
        // Bytes that are not UTF-8 in a string: 0xFF, an overlong '/', an encoded surrogate, past U+10FFFF, cut off.
        [0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82],
    ].map { bytes in
        Array(#"{"type":"Polygon","name":"a"#.utf8) + bytes + Array(#"","coordinates":[[[10.0,53.5],[10.1,53.5],[10.1,53.6],[10.0,53.5]]]}"#.utf8)
    }

    /// Texts Python's json takes that RFC 8259 does not, which we refuse, and why.
    static let refusedWherePythonReads: [(text: String, why: String)] = [
        // RFC 8259 §6: "Numeric values that cannot be represented in the grammar below (such as
        // Infinity and NaN) are not permitted." Python reads them by default (allow_nan).
        (feature(value: "NaN"), "NaN"), (feature(value: "Infinity"), "Infinity"), (feature(value: "-Infinity"), "Infinity"),
        // RFC 8259 §8.2: a string with a lone surrogate has unpredictable behaviour; Python keeps
        // it in a str, which a Swift String cannot hold (JSONDecoder put U+FFFD in its place), so
        // a member name or value would change without a word.
        (feature(value: #""\ud800""#), "surrogate"), (feature(value: #""\udc00x""#), "surrogate"),
        (feature(value: #""\ud800\u0041""#), "surrogate"),
    ]

    /// Texts that are JSON, which both read.
    static let valid: [String] = [
        feature(), feature(value: "-0"), feature(value: "-0.0e-0"), feature(value: "1E+2"), feature(value: "0.5e-3"),
        feature(value: #""\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#), feature(value: "\"Möwe 🐦 \u{7F}\""), feature(value: "[]"),
        feature(value: "{}"), feature(value: "[[[1],{\"a\":null}],true,false]"), " \t\r\n" + feature() + "\r\n",
        #"{ "type" : "Polygon" , "coordinates" : [ [ [ 10.0 , 53.5 ] , [ 10.1 , 53.5 ] , [ 10.1 , 53.6 ] , [ 10.0 , 53.5 ] ] ] }"#,
    ]

    static var python: String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Python's verdict on each text: whether json.loads read it, and its message.
    static func python(_ texts: [[UInt8]]) async throws -> [(accepted: Bool, message: String)] {
        let python = try #require(Self.python)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("json-peer-\(UUID()).json")
        let request = texts.map { $0.map { String(format: "%02x", $0) }.joined() }
        try JSONSerialization.data(withJSONObject: request).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await Command.run(python, [Repository.root.appendingPathComponent("scripts/peers/json_peer.py").path, file.path])
        try #require(result.status == 0, "json_peer.py: \(result.error)")
        let answers = try #require(try JSONSerialization.jsonObject(with: result.output) as? [[Any]])
        return answers.map { ($0[0] as? Bool ?? false, $0[1] as? String ?? "") }
    }

    /// Why GeoJSON refuses `text` as JSON, or `nil` when it reads it as JSON (even if not as an area).
    static func syntaxReason(_ text: [UInt8]) -> String? {
        do {
            _ = try GeoJSON.polygonalRegion(data: text, name: "test.geojson")
            return nil
        } catch {
            guard case let .invalid(_, "", reason) = error, reason.hasPrefix("it is not JSON: ") else { return nil }
            return reason
        }
    }

    @Test(.enabled(if: python != nil, "python3 is not on PATH"))
    func refusedWherePythonRefuses() async throws {
        let answers = try await Self.python(Self.invalid)
        try #require(answers.count == Self.invalid.count)
        for (text, python) in zip(Self.invalid, answers) {
            let shown = String(decoding: text, as: UTF8.self).debugDescription
            #expect(!python.accepted, "Python read \(shown)")
            let ours = Self.syntaxReason(text)
            #expect(ours != nil, "we read \(shown), which Python refuses (\(python.message))")
            // Where: every refusal names its line and column.
            #expect(ours?.contains(" at line 1, column ") == true, "\(shown): \(ours ?? "read")")
        }
    }

    @Test(.enabled(if: python != nil, "python3 is not on PATH"))
    func readWherePythonReads() async throws {
        let texts = Self.valid.map { Array($0.utf8) }
        let answers = try await Self.python(texts)
        try #require(answers.count == texts.count)
        for (text, python) in zip(texts, answers) {
            let shown = String(decoding: text, as: UTF8.self).debugDescription
            #expect(python.accepted, "Python refused \(shown): \(python.message)")
            #expect(Self.syntaxReason(text) == nil, "\(shown): \(Self.syntaxReason(text) ?? "")")
            // And they are areas: the polygon is read.
            #expect((try? GeoJSON.polygonalRegion(data: text, name: "test.geojson")) != nil, "\(shown)")
        }
    }

    /// Where Python is lenient and RFC 8259 is not, we keep to RFC 8259: said here, so that the
    /// difference is a decision and not an accident.
    @Test(.enabled(if: python != nil, "python3 is not on PATH"))
    func refusedWherePythonIsLenient() async throws {
        let texts = Self.refusedWherePythonReads.map { Array($0.text.utf8) }
        let answers = try await Self.python(texts)
        try #require(answers.count == texts.count)
        for ((text, why), python) in zip(Self.refusedWherePythonReads, answers) {
            #expect(python.accepted, "Python refused \(text.debugDescription): \(python.message)")
            let ours = Self.syntaxReason(Array(text.utf8))
            #expect(ours?.contains(why) == true, "\(text.debugDescription): \(ours ?? "read")")
        }
    }

    /// The user's file: a comma after the ring's last position, named where it is.
    @Test func aTrailingCommaIsNamedWhereItIs() {
        let text = "{\"type\": \"Polygon\",\n \"coordinates\": [[[10.0,53.5],[10.1,53.5],[10.1,53.6],[10.0,53.5],]]}"
        #expect(throws: GeoJSONError.invalid(
            file: "harbour.geojson", path: "",
            reason: "it is not JSON: a comma after the last element of an array (JSON allows none before ']') at line 2, column 66.")) {
            try GeoJSON.polygonalRegion(data: Array(text.utf8), name: "harbour.geojson")
        }
    }
}
