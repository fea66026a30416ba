import Foundation
import GPSCore
import Simulators
import Testing

@Suite("RFC 3339 times")
struct RFC3339Tests {
    @Test(arguments: [
        ("2024-05-01T10:00:00Z", 1_714_557_600.0, 0),
        ("2024-05-01T10:00:00.250Z", 1_714_557_600.25, 0),
        ("2024-05-01T10:00:00.123456789Z", 1_714_557_600.123456789, 0),
        ("2019-08-12T23:45:00+01:15", 1_565_649_000.0, 4500),
        ("2019-08-12T23:45:00-0530", 1_565_673_300.0, -19800),
        ("2024-02-29t12:00:00z", 1_709_208_000.0, 0),
        ("1234-05-06T07:08:09Z", -23_215_049_511.0, 0),
        ("4096-01-01T00:00:00Z", 67_090_118_400.0, 0),
        ("2016-12-31T23:59:60Z", 1_483_228_800.0, 0),
    ])
    func parsesRFC3339(text: String, seconds: Double, offset: Int) throws {
        let parsed = try #require(RFC3339.parse(text))
        #expect(abs(parsed.date.timeIntervalSince1970 - seconds) < 1e-6)
        #expect(parsed.utcOffset == offset)
    }

    @Test func noZoneMeansUTCAndSaysSo() throws {
        let parsed = try #require(RFC3339.parse("2010-01-01T00:00:00"))
        #expect(parsed.date.timeIntervalSince1970 == 1_262_304_000)
        #expect(parsed.utcOffset == nil)
    }

    @Test(arguments: [
        "", "2024-05-01", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-05-01T24:00:00Z",
        "2024-05-01T10:00:00.Z", "2024-05-01T10:00:00+25:00", "2024-05-01T10:00:00Zjunk", "20240501T100000Z",
    ])
    func rejectsMalformedTimes(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test func writesUTCWithRoundedFraction() {
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_714_557_600.2496)) == "2024-05-01T10:00:00.250Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_714_557_600.9996)) == "2024-05-01T10:00:01.000Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: -0.5), fractionDigits: 1) == "1969-12-31T23:59:59.5Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_714_557_600), fractionDigits: 0) == "2024-05-01T10:00:00Z")
    }

    @Test func formatAndParseAgreeOverManyDates() throws {
        var generator = SeededRandom(seed: 7)
        for _ in 0..<2000 {
            let milliseconds = Int64(generator.next() % 200_000_000_000_000) - 60_000_000_000_000
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = RFC3339.string(from: date)
            let parsed = try #require(RFC3339.parse(text))
            // Within a few ulps of a Double of up to 1e11 s (1.5e-5 s each): far under the millisecond written.
            #expect(abs(parsed.date.timeIntervalSince1970 - date.timeIntervalSince1970) < 1e-4, "\(text)")
        }
    }

    @Test func keepsNanosecondsOfTheFraction() throws {
        let parsed = try #require(RFC3339.parse("2024-05-01T10:00:00.123456789Z"))
        #expect(abs(parsed.date.timeIntervalSince1970 - 1_714_557_600.123456789) < 5e-7)  // a Double's ulp here is 2.4e-7
        #expect(RFC3339.parse("2024-05-01T10:00:00+01") == RFC3339.Timestamp(
            date: Date(timeIntervalSince1970: 1_714_557_600 - 3600), utcOffset: 3600))
    }
}
