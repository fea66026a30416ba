import CLibXML2
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore

// The one file that sees libxml2 and zlib. Everything else in the GPX reader (and the TCX reader,
// which uses this file's two types with `package` access) works on Swift types and raw UTF-8
// bytes: `XMLPushParser` forwards libxml2's SAX2 callbacks to an `XMLSAXReceiver` (the GPX
// reader's `GPXParseCore`, the TCX reader's core), and `GZipInput` reads a file, plain or
// gzip-compressed, in chunks.

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

/// A file read through zlib (`gzopen(3)`, `gzread(3)`), which inflates gzip data and passes any
/// other file through unchanged; whether it was compressed is known from its magic bytes, not its
/// name.
package final class GZipInput {
    private let file: gzFile
    private let path: String

    /// Opens `path`. Throws ``GPXError/unreadable(file:reason:)`` when it cannot be opened.
    package init(path: String) throws(GPXError) {
        guard let file = clibxml2_gzopen(path) else {
            throw .unreadable(file: path, reason: String(cString: strerror(errno)))
        }
        self.file = file
        self.path = path
    }

    deinit {
        gzclose_r(file)
    }

    /// Reads up to `buffer.count` bytes; 0 at the end. Throws ``GPXError/unreadable(file:reason:)``
    /// on a read error or corrupt gzip data. The corresponding C function is `gzread(3)`.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(GPXError) -> Int {
        let count = clibxml2_gzread(file, buffer.baseAddress, UInt32(buffer.count))
        let code = clibxml2_gzerrnum(file)
        // zlib's message starts with the path; the error names the file already.
        let message = clibxml2_gzerror(file).map { String(cString: $0) }.map { text in
            text.hasPrefix(path + ": ") ? String(text.dropFirst(path.count + 2)) : text
        }
        if count == 0, code == Z_BUF_ERROR {
            // Bad data, not a file that cannot be read: the error tells it apart (exit 65, not 66).
            throw .malformed(file: path, line: 0, column: 0, reason: "the compressed file is truncated: it ends before its gzip stream does")
        }
        if count < 0 {
            if code == Z_DATA_ERROR {
                throw .malformed(file: path, line: 0, column: 0, reason: "the compressed data is damaged (\(message ?? "zlib data error"))")
            }
            throw .unreadable(file: path, reason: message ?? String(cString: strerror(errno)))
        }
        return Int(count)
    }

    /// Whether the file is gzip data (meaningful after the first read). The C function is `gzdirect(3)`.
    package var isCompressed: Bool { gzdirect(file) == 0 }

    /// How many bytes of the file zlib has consumed (`gzoffset(3)`).
    package var fileOffset: Int64 { Int64(clibxml2_gzoffset(file)) }
}
