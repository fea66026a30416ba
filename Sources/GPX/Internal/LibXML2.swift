import CLibXML2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore

// The one file that sees libxml2. Everything else in the GPX reader (and the TCX reader, which
// uses this file's types with `package` access) works on Swift types and raw UTF-8 bytes:
// `XMLPushParser` forwards libxml2's SAX2 callbacks to an `XMLSAXReceiver` (the GPX reader's
// `GPXParseCore`, the TCX reader's core). Files, plain or gzip-compressed, are read in chunks
// through `GZipFiles`' reader, which the FIT reader shares.

/// What receives the SAX2 events of an ``XMLPushParser``: a format's state machine.
package protocol XMLSAXReceiver: AnyObject {
    /// Whether the receiver stopped the parse (it then ignores what follows).
    var isStopped: Bool { get }
    /// An element begins: libxml2's interned name, prefix and namespace URI (NUL-terminated), and
    /// its attributes as libxml2 gives them (five pointers each: name, prefix, URI, value start, value end).
    func startElement(
        localname: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?, uri: UnsafePointer<UInt8>?,
        attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?)
    /// The innermost open element ends.
    func endElement()
    /// Text (or ignorable white space, or CDATA) inside the innermost open element.
    func characters(_ bytes: UnsafePointer<UInt8>, count: Int)
    /// A DOCTYPE, entity declaration or entity reference: `reason` says which. The receiver stops the parse.
    func refuse(_ reason: String)
}

/// libxml2's SAX2 push parser (`xmlCreatePushParserCtxt(3)`, `xmlParseChunk(3)`), configured to
/// refuse DTDs and entities: any DOCTYPE, entity declaration or non-predefined entity reference
/// stops the parse and is reported to the receiver as a refusal. It never loads anything from the
/// network or the file system (no XML_PARSE_DTDLOAD, XML_PARSE_NOENT; XML_PARSE_NONET set).
package final class XMLPushParser {
    /// How a call to ``parse(_:final:)`` ended.
    package enum Status {
        case ok
        /// libxml2 found the document not well formed; the details are in ``lastError``.
        case malformed
        /// A callback stopped the parser (the receiver holds the reason).
        case stopped
    }

    /// Unowned: the receiver owns the parser and outlives every callback.
    fileprivate unowned(unsafe) let receiver: any XMLSAXReceiver
    private var handler = xmlSAXHandler()
    private var context: xmlParserCtxtPtr?
    private let filename: String
    /// The format's name in refusals: "a DOCTYPE is not accepted in GPX".
    let format: String

    /// `xmlInitParser(3)`, once per process: libxml2 2.9 requires it before parsers are created
    /// on several threads at once (a Swift static is initialised exactly once, thread-safely).
    private static let libraryInitialized: Void = xmlInitParser()

    /// A parser of one document named `filename` in errors, for `receiver`, whose format `format` names.
    package init(receiver: any XMLSAXReceiver, filename: String, format: String) {
        _ = Self.libraryInitialized
        self.receiver = receiver
        self.filename = filename
        self.format = format
        clibxml2_init_handler(&handler)
        Self.install(on: &handler)
    }

    deinit {
        if let context {
            xmlFreeParserCtxt(context)
        }
    }

    /// Feeds `bytes` to the parser (`final` on the last call, which may be empty).
    package func parse(_ bytes: UnsafeRawBufferPointer, final: Bool) -> Status {
        var bytes = bytes
        if context == nil {
            // The first four bytes let libxml2 detect the encoding (BOM, UTF-16...).
            let head = min(4, bytes.count)
            let user = Unmanaged.passUnretained(self).toOpaque()
            context = filename.withCString { name in
                clibxml2_create_push(
                    &handler, user, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(head), name)
            }
            guard context != nil else { return .malformed }
            bytes = UnsafeRawBufferPointer(rebasing: bytes[head...])
        }
        let result = xmlParseChunk(
            context, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), final ? 1 : 0)
        if receiver.isStopped { return .stopped }
        if result != 0, let context, context.pointee.wellFormed == 0 { return .malformed }
        return .ok
    }

    /// Stops the parse from inside a callback (`xmlStopParser(3)`): no further callbacks arrive.
    package func stop() {
        if let context { xmlStopParser(context) }
    }

    /// The line the parser has reached, from 1.
    package var line: Int { Int(clibxml2_line(context)) }

    /// The column the parser has reached, from 1.
    package var column: Int { Int(clibxml2_column(context)) }

    /// The encoding the document declared, else `UTF-8` (libxml2's default, also for a BOM).
    package var encoding: String {
        guard let context else { return "UTF-8" }
        if let declared = context.pointee.encoding ?? context.pointee.input?.pointee.encoding {
            return String(cString: declared).uppercased()
        }
        return "UTF-8"
    }

    /// The last error libxml2 recorded (`xmlCtxtGetLastError(3)`): its line, column and message on
    /// one line, without the trailing newline.
    package var lastError: (line: Int, column: Int, message: String)? {
        guard let context, let error = xmlCtxtGetLastError(context) else { return nil }
        var message = error.pointee.message.map { String(cString: $0) } ?? "error \(error.pointee.code)"
        message = message.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
            .joined(separator: " ")
        return (Int(error.pointee.line), Int(error.pointee.int2), message)
    }

    private static func install(on handler: inout xmlSAXHandler) {
        handler.startElementNs = { user, localname, prefix, uri, _, _, attributeCount, _, attributes in
            guard let localname else { return }
            saxReceiver(user).startElement(
                localname: localname, prefix: prefix, uri: uri, attributeCount: Int(attributeCount),
                attributes: attributes)
        }
        handler.endElementNs = { user, _, _, _ in
            saxReceiver(user).endElement()
        }
        handler.characters = { user, bytes, count in
            guard let bytes else { return }
            saxReceiver(user).characters(bytes, count: Int(count))
        }
        handler.ignorableWhitespace = handler.characters
        handler.cdataBlock = handler.characters
        // Refusals. The DOCTYPE callback comes first, before any declaration in it is parsed.
        handler.internalSubset = { user, name, _, _ in
            refuse(user, "a DOCTYPE (\(xmlName(name)))")
        }
        handler.externalSubset = { user, name, _, _ in
            refuse(user, "an external DTD subset (\(xmlName(name)))")
        }
        handler.entityDecl = { user, name, _, _, _, _ in
            refuse(user, "an entity declaration (\(xmlName(name)))")
        }
        handler.unparsedEntityDecl = { user, name, _, _, _ in
            refuse(user, "an entity declaration (\(xmlName(name)))")
        }
        handler.getEntity = { user, name in
            refuse(user, "the entity reference &\(xmlName(name));")
            return nil
        }
        handler.getParameterEntity = { user, name in
            refuse(user, "the parameter entity reference %\(xmlName(name));")
            return nil
        }
        handler.reference = { user, name in
            refuse(user, "the entity reference &\(xmlName(name));")
        }
        handler.resolveEntity = { user, _, system in
            refuse(user, "an external entity (\(xmlName(system)))")
            return nil
        }
    }
}

/// The receiver of the parser a callback's user pointer stands for (passed unretained: the
/// receiver owns the parser, which outlives its callbacks).
private func saxReceiver(_ user: UnsafeMutableRawPointer?) -> any XMLSAXReceiver {
    Unmanaged<XMLPushParser>.fromOpaque(user!).takeUnretainedValue().receiver
}

/// Refuses, naming the parser's format: "a DOCTYPE (gpx) is not accepted in GPX".
private func refuse(_ user: UnsafeMutableRawPointer?, _ what: String) {
    let parser = Unmanaged<XMLPushParser>.fromOpaque(user!).takeUnretainedValue()
    parser.receiver.refuse("\(what) is not accepted in \(parser.format)")
}

private func xmlName(_ text: UnsafePointer<xmlChar>?) -> String {
    text.map { String(cString: $0) } ?? ""
}
