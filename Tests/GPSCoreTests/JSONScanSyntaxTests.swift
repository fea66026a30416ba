import GPSCore
import Testing

/// `JSONScan.syntaxError(in:)`: RFC 8259, strictly, each refusal naming what is wrong and where
/// (line and column from 1, the column in characters). What Python's `json` says of the same
/// texts is held in RegionMonitoringTests' `GeoJSONStrictnessTests`.
@Suite("Strict JSON syntax, and where it fails")
struct JSONScanSyntaxTests {
    func error(_ text: String) -> JSONScan.SyntaxError? {
        JSONScan.syntaxError(in: Array(text.utf8))
    }

    @Test(arguments: [
        // The comma is named, where it is: the user's ring with one after its last position.
        ("[[10.0,53.5],]", "a comma after the last element of an array (JSON allows none before ']')", 1, 13),
        ("{\"a\":1,\n  }", "a comma after the last member of an object (JSON allows none before '}')", 1, 7),
        ("[1,,2]", "expected a value, found ','", 1, 4),
        ("[010.5]", "a number with a leading zero: JSON writes 7 or 0.7, not 07", 1, 2),
        ("[-00]", "a number with a leading zero: JSON writes 7 or 0.7, not 07", 1, 2),
        ("[1.]", "expected a digit after a number's decimal point, found ']'", 1, 4),
        ("[.5]", "expected a value, found '.'", 1, 2),
        ("[1e+]", "expected a digit in a number's exponent, found ']'", 1, 5),
        ("[+1]", "expected a value, found '+'", 1, 2),
        ("[-]", "expected a digit after '-', found ']'", 1, 3),
        ("[NaN]", "expected a value, found 'NaN': JSON has no NaN or Infinity", 1, 2),
        ("[-Infinity]", "expected a digit after '-', found 'Infinity': JSON has no NaN or Infinity", 1, 3),
        ("[True]", "expected a value, found 'True'", 1, 2),
        ("[nul]", "expected a value, found 'nul'", 1, 2),
        ("{'a':1}", "expected a member name in double quotes, found '''", 1, 2),
        ("['a']", "expected a value, found ''': JSON strings are in double quotes", 1, 2),
        ("{a:1}", "expected a member name in double quotes, found 'a'", 1, 2),
        ("{\"a\" 1}", "expected ':' after a member name, found '1'", 1, 6),
        ("[1 2]", "expected ',' or ']' after an element of an array, found '2'", 1, 4),
        ("[1] // note", "text after the end of the JSON value: '/'", 1, 5),
        ("{}{}", "text after the end of the JSON value: '{'", 1, 3),
        ("[\"a\tb\"]", "the control character U+0009 inside a string: JSON needs it escaped (\\n, \\t, \\u0009)", 1, 4),
        ("[\"a\nb\"]", "the control character U+000A inside a string: JSON needs it escaped (\\n, \\t, \\u000A)", 1, 4),
        (#"["\x41"]"#, #"an escape JSON does not have, '\' then 'x': it has \" \\ \/ \b \f \n \r \t and \uXXXX"#, 1, 3),
        (#"["\u12"]"#, #"\u needs four hexadecimal digits"#, 1, 3),
        (#"["\ud800"]"#, #"a lone surrogate \uD800: a high surrogate must be followed by a low one (\uDC00 to \uDFFF)"#, 1, 3),
        (#"["\ud800\u0041"]"#, #"a lone surrogate \uD800: a high surrogate must be followed by a low one (\uDC00 to \uDFFF)"#, 1, 3),
        (#"["\udc00"]"#, #"a lone surrogate \uDC00: a low surrogate must follow a high one (\uD800 to \uDBFF)"#, 1, 3),
        ("[\"é\u{1}\"]", "the control character U+0001 inside a string: JSON needs it escaped (\\n, \\t, \\u0001)", 1, 4),
        ("{\"a\":\n  [1,\n   2", "an array not closed: expected ',' or ']', found the end of the text", 3, 5),
        ("[\"abc", "a string not closed: it opens here and the text ends inside it", 1, 2),
        ("[1]\u{A0}", "text after the end of the JSON value: '\u{A0}' (U+00A0)", 1, 4),
        ("[1,\u{C}2]", "expected a value, found the control character U+000C", 1, 4),
        ("", "no JSON value: the text is empty", 1, 1),
        (" \n ", "no JSON value: the text is only white space", 2, 2),
    ] as [(String, String, Int, Int)])
    func refusals(text: String, reason: String, line: Int, column: Int) {
        let found = error(text)
        #expect(found?.reason == reason, "\(text.debugDescription)")
        #expect(found.map { [$0.line, $0.column] } == [line, column], "\(text.debugDescription): \(String(describing: found))")
        #expect(found?.description == "\(reason) at line \(line), column \(column)")
    }

    @Test("Bytes that are not UTF-8 are refused, in a string or out of one")
    func notUTF8() {
        for (bytes, offset) in [
            ([0x5B, 0x22, 0xFF, 0x22, 0x5D], 2),  // ["\xFF"]
            ([0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D], 2),  // an overlong '/'
            ([0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D], 2),  // a surrogate, encoded
            ([0x5B, 0x22, 0xF4, 0x90, 0x80, 0x80, 0x22, 0x5D], 2),  // past U+10FFFF
            ([0x5B, 0x22, 0xE2, 0x82], 2),  // cut off at the end
            ([0x5B, 0xFF, 0x5D], 1),
        ] as [([UInt8], Int)] {
            let found = JSONScan.syntaxError(in: bytes)
            #expect(found?.offset == offset, "\(bytes): \(String(describing: found))")
            #expect(found?.reason.contains("UTF-8") == true, "\(bytes): \(String(describing: found))")
        }
    }

    @Test("What RFC 8259 allows is accepted")
    func accepted() {
        for text in [
            "0", "-0", "-0.0e-0", "1E+2", "0.5e-3", "123456789012345678901234567890", "1e400", #""""#, "true", "false", "null",
            #"{"a":[1,{"b":null}],"c":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}"#, "\"é😀\u{7F}\"", " \t\r\n[ 1 , 2 ]\r\n", "{}", "[]", "[[[]]]",
            "\u{FEFF}{\"type\":\"Polygon\"}",
        ] {
            #expect(error(text) == nil, "\(text.debugDescription): \(String(describing: error(text)))")
        }
    }

    @Test("Nesting past the limit is refused where it passes it; up to it is JSON")
    func depth() {
        let limit = JSONScan.maximumDepth
        #expect(error(String(repeating: "[", count: limit) + String(repeating: "]", count: limit)) == nil)
        let deep = error(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1))
        #expect(deep?.reason == "arrays and objects nested more than \(limit) deep")
        #expect(deep?.column == limit + 1)
    }

    @Test("The column counts characters, not bytes; the line counts newlines")
    func columnsAreCharacters() {
        let found = error("{\"name\": \"Möwe 🐦\",\n \"x\": [1,]}")
        #expect(found.map { [$0.line, $0.column, $0.offset] } == [2, 9, 31], "\(String(describing: found))")
    }
}
