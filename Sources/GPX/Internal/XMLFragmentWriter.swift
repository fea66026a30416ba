import GPSCore

// Re-serialises an unknown extension element (and everything inside it) as XML text, so that
// export can write it back: `GPXPoint.unknownExtensions`.

/// Builds one element's XML text from SAX events. Every namespace a prefixed element or attribute
/// uses is declared in the text (on the outermost element that needs it), so the fragment stands
/// alone. Unprefixed elements in GPX's own namespace or in none get no declaration: they take the
/// default namespace of the document they are written back into.
package struct XMLFragmentWriter {
    private(set) var bytes: [UInt8] = []
    /// Prefix → URI bindings declared so far, one array per open element.
    private var scopes: [[(prefix: [UInt8], uri: [UInt8])]] = []
    /// Whether the last start tag is still open (`<a` written, `>` not yet).
    private var tagOpen = false

    package init() {}

    /// Whether no element is open.
    package var isEmpty: Bool { scopes.isEmpty }
    /// How many elements are open.
    package var depth: Int { scopes.count }
    /// The bytes of the element being written, so far.
    package var count: Int { bytes.count }

    /// Opens an element of any namespace (the TCX reader's extensions): as
    /// ``start(localname:prefix:uri:namespace:attributeCount:attributes:)`` with the namespace
    /// classified from `uri`.
    package mutating func start(
        localname: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?, uri: UnsafePointer<UInt8>?,
        attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    ) {
        start(localname: localname, prefix: prefix, uri: uri, namespace: GPXNamespace.classify(uri),
              attributeCount: attributeCount, attributes: attributes)
    }

    private func bound(_ prefix: [UInt8]) -> [UInt8]? {
        for scope in scopes.reversed() {
            if let binding = scope.last(where: { $0.prefix == prefix }) { return binding.uri }
        }
        return nil
    }

    private static func bytes(_ text: UnsafePointer<UInt8>?) -> [UInt8] {
        guard let text else { return [] }
        var end = text
        while end.pointee != 0 { end += 1 }
        return Array(UnsafeBufferPointer(start: text, count: end - text))
    }

    private mutating func closeTag() {
        if tagOpen {
            bytes.append(UInt8(ascii: ">"))
            tagOpen = false
        }
    }

    /// Opens an element. `attributes` is libxml2's array of `attributeCount` 5-tuples (localname,
    /// prefix, URI, value start, value end).
    mutating func start(
        localname: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?, uri: UnsafePointer<UInt8>?,
        namespace: GPXNamespace, attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    ) {
        closeTag()
        var declarations: [(prefix: [UInt8], uri: [UInt8])] = []
        func declare(_ prefix: [UInt8], _ uri: [UInt8]) {
            if bound(prefix) != uri, !declarations.contains(where: { $0.prefix == prefix }) {
                declarations.append((prefix, uri))
            }
        }
        // A prefix libxml2 found undeclared (a namespace error it tolerates) has no URI: the
        // element is written without it, in no namespace, rather than with an invalid `xmlns:p=""`.
        let uriBytes = Self.bytes(uri)
        let prefixBytes = uriBytes.isEmpty ? [] : Self.bytes(prefix)
        if !prefixBytes.isEmpty {
            declare(prefixBytes, uriBytes)
        } else if !namespace.isGPX || (bound([]).map { $0 != uriBytes } ?? false) {
            declare([], uriBytes)
        }
        bytes.append(UInt8(ascii: "<"))
        let name = (prefixBytes.isEmpty ? [] : prefixBytes + [UInt8(ascii: ":")]) + Self.bytes(localname)
        bytes += name
        var attributeText: [UInt8] = []
        var unprefixed: [[UInt8]] = []
        if let attributes {
            for index in 0..<attributeCount {
                let base = index * 5
                guard let local = attributes[base], let start = attributes[base + 3], let end = attributes[base + 4]
                else { continue }
                let attributeURI = Self.bytes(attributes[base + 2])
                let attributePrefix = attributeURI.isEmpty ? [] : Self.bytes(attributes[base + 1])
                let localBytes = Self.bytes(local)
                if attributePrefix.isEmpty {
                    // Undeclared prefixes dropped could make two attributes one: keep the first.
                    if unprefixed.contains(localBytes) { continue }
                    unprefixed.append(localBytes)
                } else {
                    declare(attributePrefix, attributeURI)
                }
                attributeText.append(UInt8(ascii: " "))
                if !attributePrefix.isEmpty { attributeText += attributePrefix + [UInt8(ascii: ":")] }
                attributeText += localBytes
                attributeText += Array("=\"".utf8)
                Self.escape(
                    Self.attributeValue(UnsafeBufferPointer(start: start, count: end - start)), into: &attributeText,
                    attribute: true)
                attributeText.append(UInt8(ascii: "\""))
            }
        }
        for declaration in declarations {
            bytes += Array(" xmlns".utf8)
            if !declaration.prefix.isEmpty { bytes += [UInt8(ascii: ":")] + declaration.prefix }
            bytes += Array("=\"".utf8)
            Self.escape(declaration.uri, into: &bytes, attribute: true)
            bytes.append(UInt8(ascii: "\""))
        }
        bytes += attributeText
        scopes.append(declarations)
        tagOpen = true
        names.append(name)
    }

    private var names: [[UInt8]] = []

    /// Text inside the open element.
    package mutating func characters(_ text: UnsafeBufferPointer<UInt8>) {
        closeTag()
        Self.escape(text, into: &bytes, attribute: false)
    }

    /// Closes the open element; returns the text when it was the outermost one.
    package mutating func end() -> String? {
        let name = names.removeLast()
        scopes.removeLast()
        if tagOpen {
            bytes += Array("/>".utf8)
            tagOpen = false
        } else {
            bytes += Array("</".utf8) + name + [UInt8(ascii: ">")]
        }
        guard scopes.isEmpty else { return nil }
        defer { bytes.removeAll(keepingCapacity: true) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An attribute value as libxml2 gives it without entity substitution, where `&#38;` stands
    /// for `&` (a bare `&` cannot occur), with `&` restored.
    private static func attributeValue(_ value: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(value.count)
        var index = 0
        let marker = Array("&#38;".utf8)
        while index < value.count {
            if value[index] == UInt8(ascii: "&"), index + 5 <= value.count,
                Array(value[index..<index + 5]) == marker
            {
                result.append(UInt8(ascii: "&"))
                index += 5
            } else {
                result.append(value[index])
                index += 1
            }
        }
        return result
    }

    private static func escape(_ text: [UInt8], into output: inout [UInt8], attribute: Bool) {
        text.withUnsafeBufferPointer { TextBytes.appendXML(utf8: $0, attribute: attribute, to: &output) }
    }

    private static func escape(_ text: UnsafeBufferPointer<UInt8>, into output: inout [UInt8], attribute: Bool) {
        TextBytes.appendXML(utf8: text, attribute: attribute, to: &output)
    }
}
