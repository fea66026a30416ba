/// What the first bytes of an XML document say before it is parsed: the one sniffer that tells a
/// GPX file from a TCX one by its root element, for the workout import and the course reader alike.
package enum XMLHead {
    /// The name of the first element of XML text (passing over a BOM, the declaration,
    /// processing instructions, comments, a DOCTYPE and white space), if `bytes` hold it; with
    /// its prefix, as written (`gpx`, `tcx:TrainingCenterDatabase`).
    package static func rootElement(_ bytes: [UInt8]) -> String? {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func skip(past terminator: String) -> Bool {
            let end = Array(terminator.utf8)
            while index + end.count <= bytes.count {
                if bytes[index..<index + end.count].elementsEqual(end) {
                    index += end.count
                    return true
                }
                index += 1
            }
            return false
        }
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D:
                index += 1
            case UInt8(ascii: "<"):
                let rest = bytes[(index + 1)...]
                if rest.starts(with: Array("?".utf8)) {
                    guard skip(past: "?>") else { return nil }
                } else if rest.starts(with: Array("!--".utf8)) {
                    guard skip(past: "-->") else { return nil }
                } else if rest.starts(with: Array("!".utf8)) {
                    guard skip(past: ">") else { return nil }
                } else {
                    let name = rest.prefix { byte in
                        !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/"))
                    }
                    return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
                }
            default:
                return nil
            }
        }
        return nil
    }

    /// The root element's name without its prefix (`TrainingCenterDatabase`), if `bytes` hold it.
    package static func localRootName(_ bytes: [UInt8]) -> String? {
        guard let root = rootElement(bytes) else { return nil }
        return root.split(separator: ":").last.map(String.init) ?? root
    }
}
