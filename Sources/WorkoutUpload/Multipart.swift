import Foundation

/// A `multipart/form-data` body (RFC 7578): named text fields and files, in order.
struct MultipartForm {
    /// A boundary no part's bytes contain (checked as each part is added).
    private(set) var boundary = "swift-gps-facade-\(UInt64.random(in: .min ... .max))"
    private var parts: [(name: String, filename: String?, type: String?, data: Data)] = []

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func add(_ name: String, _ value: String) {
        parts.append((name, nil, nil, Data(value.utf8)))
    }

    mutating func add(_ name: String, filename: String, type: String, data: Data) {
        parts.append((name, filename, type, data))
    }

    /// The body; a boundary met inside a part is replaced by a new one first.
    mutating func body() -> [UInt8] {
        while parts.contains(where: { $0.data.range(of: Data(boundary.utf8)) != nil }) {
            boundary = "swift-gps-facade-\(UInt64.random(in: .min ... .max))"
        }
        var body: [UInt8] = []
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
            if let filename = part.filename { head += "; filename=\"\(filename)\"" }
            head += "\r\n"
            if let type = part.type { head += "Content-Type: \(type)\r\n" }
            head += "\r\n"
            body += Array(head.utf8)
            body += part.data
            body += Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return body
    }
}

/// `application/x-www-form-urlencoded`, as OAuth 2.0's token endpoint takes it (RFC 6749, appendix B).
func formEncoded(_ fields: [(String, String)]) -> [UInt8] {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    let pairs = fields.map { name, value in
        "\(name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
    }
    return Array(pairs.joined(separator: "&").utf8)
}
