import GPSCore
import Testing

/// `JSONScan.compact` removes the white space between tokens and nothing inside strings.
@Test(arguments: [
    (#"{ "class" : "TPV" , "lat" : 51.5 }"#, #"{"class":"TPV","lat":51.5}"#),
    ("{\"a\":\t[ 1,\n 2 ]}", #"{"a":[1,2]}"#),
    (#"{"text":"a \" b } c","n" : 1}"#, #"{"text":"a \" b } c","n":1}"#),
    (#"{"path":"C:\\ x\\","k": 2}"#, #"{"path":"C:\\ x\\","k":2}"#),
    (#"{"class":"TPV"}"#, #"{"class":"TPV"}"#),
])
func compactRemovesOnlyTheSpaceBetweenTokens(input: String, expected: String) {
    var bytes = Array(input.utf8)
    let length = bytes.withUnsafeMutableBufferPointer { JSONScan.compact($0) }
    #expect(String(decoding: bytes.prefix(length), as: UTF8.self) == expected)
}

/// `JSONScan.scanObject` finds the first white space outside strings (`nil` for gpsd's compact
/// lines, which are then not rewritten), and compacting from there gives what compacting the whole
/// text gives.
@Test(arguments: [
    (#"{"class":"TPV","lat":51.5}"#, nil),
    (#"{"device":"a b\" c","n":1}"#, nil),
    (#" {"a":1}"#, 0),
    (#"{"a":1}  "#, 7),
    (#"{"a": 1}"#, 5),
    (#"{"a":"x y","b" :2}"#, 14),
    ("{\"a\":[1,\n2]}", 8),
] as [(String, Int?)])
func scanFindsTheFirstSpaceCompactNeeds(input: String, firstSpace: Int?) {
    var bytes = Array(input.utf8)
    let scan = bytes.withUnsafeBufferPointer { JSONScan.scanObject($0) }
    #expect(scan == .object(firstSpace: firstSpace))
    var whole = bytes
    let wholeLength = whole.withUnsafeMutableBufferPointer { JSONScan.compact($0) }
    let length = bytes.withUnsafeMutableBufferPointer { JSONScan.compact($0, from: firstSpace ?? $0.count) }
    #expect(bytes.prefix(length) == whole.prefix(wholeLength))
}
