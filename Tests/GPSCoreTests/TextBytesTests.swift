@testable import GPSCore
import Testing

@Suite("Writing XML, JSON and numbers")
struct TextBytesTests {
    private func xml(_ text: String, attribute: Bool = false) -> String {
        var bytes: [UInt8] = []
        TextBytes.appendXML(text, attribute: attribute, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func escapesMarkupInContentAndAttributes() {
        #expect(xml(#"a & b < c > d "e""#) == #"a &amp; b &lt; c &gt; d "e""#)
        #expect(xml(#"a & b < c > d "e""#, attribute: true) == "a &amp; b &lt; c &gt; d &quot;e&quot;")
    }

    @Test func keepsWhiteSpaceAParserWouldChange() {
        #expect(xml("a\tb\nc\rd") == "a\tb\nc&#13;d")
        #expect(xml("a\tb\nc\rd", attribute: true) == "a&#9;b&#10;c&#13;d")
    }

    @Test func dropsWhatXMLCannotHold() {
        #expect(xml("a\u{0}b\u{1B}c\u{7}d") == "abcd")
        #expect(xml("x\u{FFFE}y\u{FFFF}z") == "xyz")
        #expect(xml("é ü 🚲 \u{FFFD}") == "é ü 🚲 \u{FFFD}")
    }

    @Test func jsonStringsEscapeQuotesBackslashesAndControls() {
        var bytes: [UInt8] = []
        TextBytes.appendJSONString("a\"b\\c\nd\u{1}", to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #""a\"b\\c\nd\u0001""#)
    }

    @Test func fixedKeepsOrTrimsZeros() {
        #expect(TextBytes.fixed(51.4779, decimals: 7) == "51.4779000")
        #expect(TextBytes.fixed(-0.0015, decimals: 7) == "-0.0015000")
        // As printf rounds: the exact binary value, ties to even.
        #expect(TextBytes.fixed(2.5, decimals: 0) == "2")
        #expect(TextBytes.fixed(3.5, decimals: 0) == "4")
        #expect(TextBytes.fixed(293.325, decimals: 2) == "293.32")  // 293.32499999999998863...
        #expect(TextBytes.fixed(-0.001, decimals: 2) == "0.00")
        var bytes: [UInt8] = []
        TextBytes.appendFixed(12.50, decimals: 2, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "12.5")
    }

    @Test func shortestNumbersReadBackExactly() {
        for value in [0.1, 51.477928, -0.001545, 1e-5, 123456789.125, 1e21] {
            var bytes: [UInt8] = []
            TextBytes.appendShortest(value, to: &bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains("e"), "\(text)")
            #expect(Double(text) == value, "\(text)")
        }
    }
}
