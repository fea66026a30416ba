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
