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

// The one file that sees libxml2 and zlib. Everything else in the GPX reader works on Swift types
// and raw UTF-8 bytes: `XMLPushParser` forwards libxml2's SAX2 callbacks to a `GPXParseCore`, and
// `GZipInput` reads a file, plain or gzip-compressed, in chunks.

/// libxml2's SAX2 push parser (`xmlCreatePushParserCtxt(3)`, `xmlParseChunk(3)`), configured to
/// refuse DTDs and entities: any DOCTYPE, entity declaration or non-predefined entity reference
/// stops the parse and is reported to the core as a refusal. It never loads anything from the
/// network or the file system (no XML_PARSE_DTDLOAD, XML_PARSE_NOENT; XML_PARSE_NONET set).
final class XMLPushParser {
    /// How a call to ``parse(_:final:)`` ended.
    enum Status {
        case ok
        /// libxml2 found the document not well formed; the details are in ``lastError``.
        case malformed
        /// A callback stopped the parser (the core holds the reason).
        case stopped
    }

    private unowned let core: GPXParseCore
    private var handler = xmlSAXHandler()
    private var context: xmlParserCtxtPtr?
    private let filename: String

    /// `xmlInitParser(3)`, once per process: libxml2 2.9 requires it before parsers are created
    /// on several threads at once (a Swift static is initialised exactly once, thread-safely).
    private static let libraryInitialized: Void = xmlInitParser()

    init(core: GPXParseCore, filename: String) {
        _ = Self.libraryInitialized
        self.core = core
        self.filename = filename
        clibxml2_init_handler(&handler)
        Self.install(on: &handler)
    }

    deinit {
        if let context {
            xmlFreeParserCtxt(context)
        }
    }

    /// Feeds `bytes` to the parser (`final` on the last call, which may be empty).
    func parse(_ bytes: UnsafeRawBufferPointer, final: Bool) -> Status {
        var bytes = bytes
        if context == nil {
            // The first four bytes let libxml2 detect the encoding (BOM, UTF-16...).
            let head = min(4, bytes.count)
            let user = Unmanaged.passUnretained(core).toOpaque()
            context = filename.withCString { name in
                clibxml2_create_push(
                    &handler, user, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(head), name)
            }
            guard context != nil else { return .malformed }
            bytes = UnsafeRawBufferPointer(rebasing: bytes[head...])
        }
        let result = xmlParseChunk(
            context, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), final ? 1 : 0)
        if core.isStopped { return .stopped }
        if result != 0, let context, context.pointee.wellFormed == 0 { return .malformed }
        return .ok
    }

    /// Stops the parse from inside a callback (`xmlStopParser(3)`): no further callbacks arrive.
    func stop() {
        if let context { xmlStopParser(context) }
    }

    /// The line the parser has reached, from 1.
    var line: Int { Int(clibxml2_line(context)) }

    /// The column the parser has reached, from 1.
    var column: Int { Int(clibxml2_column(context)) }

    /// The encoding the document declared, else `UTF-8` (libxml2's default, also for a BOM).
    var encoding: String {
        guard let context else { return "UTF-8" }
        if let declared = context.pointee.encoding ?? context.pointee.input?.pointee.encoding {
            return String(cString: declared).uppercased()
        }
        return "UTF-8"
    }

    /// The last error libxml2 recorded (`xmlCtxtGetLastError(3)`): its line, column and message on
    /// one line, without the trailing newline.
    var lastError: (line: Int, column: Int, message: String)? {
        guard let context, let error = xmlCtxtGetLastError(context) else { return nil }
        var message = error.pointee.message.map { String(cString: $0) } ?? "error \(error.pointee.code)"
        message = message.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
            .joined(separator: " ")
        return (Int(error.pointee.line), Int(error.pointee.int2), message)
    }

    private static func install(on handler: inout xmlSAXHandler) {
        handler.startElementNs = { user, localname, prefix, uri, _, _, attributeCount, _, attributes in
            guard let localname else { return }
            parseCore(user).startElement(
                localname: localname, prefix: prefix, uri: uri, attributeCount: Int(attributeCount),
                attributes: attributes)
        }
        handler.endElementNs = { user, _, _, _ in
            parseCore(user).endElement()
        }
        handler.characters = { user, bytes, count in
            guard let bytes else { return }
            parseCore(user).characters(bytes, count: Int(count))
        }
        handler.ignorableWhitespace = handler.characters
        handler.cdataBlock = handler.characters
        // Refusals. The DOCTYPE callback comes first, before any declaration in it is parsed.
        handler.internalSubset = { user, name, _, _ in
            parseCore(user).refuse("a DOCTYPE (\(xmlName(name))) is not accepted in GPX")
        }
        handler.externalSubset = { user, name, _, _ in
            parseCore(user).refuse("an external DTD subset (\(xmlName(name))) is not accepted in GPX")
        }
        handler.entityDecl = { user, name, _, _, _, _ in
            parseCore(user).refuse("an entity declaration (\(xmlName(name))) is not accepted in GPX")
        }
        handler.unparsedEntityDecl = { user, name, _, _, _ in
            parseCore(user).refuse("an entity declaration (\(xmlName(name))) is not accepted in GPX")
        }
        handler.getEntity = { user, name in
            parseCore(user).refuse("the entity reference &\(xmlName(name)); is not accepted in GPX")
            return nil
        }
        handler.getParameterEntity = { user, name in
            parseCore(user).refuse("the parameter entity reference %\(xmlName(name)); is not accepted in GPX")
            return nil
        }
        handler.reference = { user, name in
            parseCore(user).refuse("the entity reference &\(xmlName(name)); is not accepted in GPX")
        }
        handler.resolveEntity = { user, _, system in
            parseCore(user).refuse("an external entity (\(xmlName(system))) is not accepted in GPX")
            return nil
        }
    }
}

/// The core a callback's user pointer stands for (passed unretained: the core outlives the parser).
private func parseCore(_ user: UnsafeMutableRawPointer?) -> GPXParseCore {
    Unmanaged<GPXParseCore>.fromOpaque(user!).takeUnretainedValue()
}

private func xmlName(_ text: UnsafePointer<xmlChar>?) -> String {
    text.map { String(cString: $0) } ?? ""
}

/// A file read through zlib (`gzopen(3)`, `gzread(3)`), which inflates gzip data and passes any
/// other file through unchanged; whether it was compressed is known from its magic bytes, not its
/// name.
final class GZipInput {
    private let file: gzFile
    private let path: String

    /// Opens `path`. Throws ``GPXError/unreadable(file:reason:)`` when it cannot be opened.
    init(path: String) throws(GPXError) {
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
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(GPXError) -> Int {
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
    var isCompressed: Bool { gzdirect(file) == 0 }

    /// How many bytes of the file zlib has consumed (`gzoffset(3)`).
    var fileOffset: Int64 { Int64(clibxml2_gzoffset(file)) }
}
