import GPSCore
import Testing

@Suite("Scanning JSON text")
struct JSONScanTests {
    private func withBytes<T>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        Array(text.utf8).withUnsafeBufferPointer(body)
    }

    @Test(arguments: [
        (#"{"class":"TPV","lat":1}"#, nil),
        (#"  {"a":"}{][\"\\"}  "#, nil),
        ("", "an empty line"),
        ("[1,2]", "not a JSON object"),
        (#"{"a":1"#, "a truncated object"),
        (#"{"a":"x}"#, "an unterminated string"),
        (#"{"a":1}}"#, "text after the end of the object"),
        (#"{"a":1} x"#, "text after the end of the object"),
    ] as [(String, String?)])
    func shapeProblems(text: String, problem: String?) {
        #expect(withBytes(text) { JSONScan.shapeProblem($0) } == problem)
    }

    @Test func escapedQuotesDoNotEndAString() {
        let text = #"{"device":"a\"}b","class":"TPV"}"#
        #expect(withBytes(text) { JSONScan.shapeProblem($0) } == nil)
        let range = withBytes(text) { JSONScan.stringMember(named: "class", in: $0) }
        #expect(range.map { String(decoding: Array(text.utf8)[$0], as: UTF8.self) } == "TPV")
    }

    @Test func membersMayHaveSpacesAroundTheColon() {
        let text = #"{ "class" : "TPV", "mode": 3 }"#
        let range = withBytes(text) { JSONScan.stringMember(named: "class", in: $0) }
        #expect(range.map { String(decoding: Array(text.utf8)[$0], as: UTF8.self) } == "TPV")
        #expect(withBytes(text) { JSONScan.hasMember("mode", in: $0) })
    }

    @Test func aKeyInsideAStringValueIsNotAMember() {
        let text = #"{"path":"\"class\":\"SKY\"","class":"TPV"}"#
        let range = withBytes(text) { JSONScan.stringMember(named: "class", in: $0) }
        #expect(range.map { String(decoding: Array(text.utf8)[$0], as: UTF8.self) } == "TPV")
        #expect(!withBytes(#"{"note":"class"}"#) { JSONScan.hasMember("class", in: $0) })
    }

    @Test func objectsOfAnArrayMember() {
        let text = #"{"class":"POLL","tpv":[{"a":"]}"},{"b":[1,{"c":2}]}],"sky":[{"d":1}]}"#
        let objects = withBytes(text) { JSONScan.objectsInArray(named: "tpv", of: $0) }
        let bytes = Array(text.utf8)
        #expect(objects.map { String(decoding: bytes[$0], as: UTF8.self) } == [#"{"a":"]}"}"#, #"{"b":[1,{"c":2}]}"#])
    }

    @Test func endOfValueWaitsForTheWholeObject() {
        #expect(withBytes(#"{"a":"}"#) { JSONScan.endOfValue(in: $0, from: 0) } == nil)
        #expect(withBytes(#"{"a":"\"}"};"#) { JSONScan.endOfValue(in: $0, from: 0) } == 11)
    }
}
