import CLibXML2
#if canImport(Glibc)
import Glibc
#endif
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
        /// libxml2 could not be loaded: `reason` names the library and what to install.
        case unavailable(reason: String)
    }

    /// Unowned: the receiver owns the parser and outlives every callback.
    fileprivate unowned(unsafe) let receiver: any XMLSAXReceiver
    private var handler = xmlSAXHandler()
    private var context: xmlParserCtxtPtr?
    private let filename: String
    /// The format's name in refusals: "a DOCTYPE is not accepted in GPX".
    let format: String

    /// libxml2, loaded by the first parser; a failure to load it is each parse's answer.
    private let loaded = LibXML2.loaded

    /// A parser of one document named `filename` in errors, for `receiver`, whose format `format` names.
    package init(receiver: any XMLSAXReceiver, filename: String, format: String) {
        self.receiver = receiver
        self.filename = filename
        self.format = format
        clibxml2_init_handler(&handler)
        Self.install(on: &handler)
    }

    deinit {
        if let context, case let .success(xml) = loaded {
            xml.freeParserCtxt(context)
        }
    }

    /// Feeds `bytes` to the parser (`final` on the last call, which may be empty).
    package func parse(_ bytes: UnsafeRawBufferPointer, final: Bool) -> Status {
        let xml: LibXML2
        switch loaded {
        case let .success(library): xml = library
        case let .failure(failure): return .unavailable(reason: failure.reason)
        }
        var bytes = bytes
        if context == nil {
            // The first four bytes let libxml2 detect the encoding (BOM, UTF-16...).
            let head = min(4, bytes.count)
            let user = Unmanaged.passUnretained(self).toOpaque()
            context = filename.withCString { name in
                xml.createPushParserCtxt(&handler, user, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(head), name)
            }
            guard let context else { return .malformed }
            // No network, no DTD loading, no entity substitution (none of XML_PARSE_NOENT,
            // XML_PARSE_DTDLOAD, XML_PARSE_DTDATTR, XML_PARSE_HUGE).
            _ = xml.ctxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue))
            bytes = UnsafeRawBufferPointer(rebasing: bytes[head...])
        }
        let result = xml.parseChunk(
            context, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), final ? 1 : 0)
        if receiver.isStopped { return .stopped }
        if result != 0, let context, context.pointee.wellFormed == 0 { return .malformed }
        return .ok
    }

    /// Stops the parse from inside a callback (`xmlStopParser(3)`): no further callbacks arrive.
    package func stop() {
        if let context, case let .success(xml) = loaded { xml.stopParser(context) }
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
        guard let context, case let .success(xml) = loaded, let error = xml.ctxtGetLastError(context) else { return nil }
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

/// The functions of libxml2 that the parser calls, found by `dlopen(3)` when the first parser is
/// made, not by the dynamic loader when the program starts: a command that reads no XML (`locate
/// once` against gpsd, `workout record` from gpsd) then does not load libxml2 and the ICU libraries
/// under it, about a tenth of a `locate once`'s start-up (`scripts/bench once-latency`). Nothing
/// here refers to a libxml2 symbol, so `scripts/install` takes libxml2 off the list of libraries
/// its executables load at start (`scripts/unlink-libxml2`); a program built with plain `swift
/// build` still loads it at start, and `dlopen` finds it there. The headers still give the types
/// (`xmlSAXHandler`, `xmlParserCtxt`), which cost nothing at run time.
struct LibXML2: @unchecked Sendable {
    // The signatures of libxml2 2.9's functions (parser.h, xmlerror.h), as Swift imports them.
    typealias CreatePushParserCtxt = @convention(c) (
        UnsafeMutablePointer<xmlSAXHandler>?, UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?
    ) -> xmlParserCtxtPtr?
    typealias CtxtUseOptions = @convention(c) (xmlParserCtxtPtr?, Int32) -> Int32
    typealias ParseChunk = @convention(c) (xmlParserCtxtPtr?, UnsafePointer<CChar>?, Int32, Int32) -> Int32
    typealias OnContext = @convention(c) (xmlParserCtxtPtr?) -> Void
    typealias CtxtGetLastError = @convention(c) (UnsafeMutableRawPointer?) -> xmlErrorPtr?

    let createPushParserCtxt: CreatePushParserCtxt
    let ctxtUseOptions: CtxtUseOptions
    let parseChunk: ParseChunk
    let stopParser: OnContext
    let freeParserCtxt: OnContext
    private let getLastError: CtxtGetLastError

    func ctxtGetLastError(_ context: xmlParserCtxtPtr) -> xmlErrorPtr? {
        getLastError(UnsafeMutableRawPointer(context))
    }

    /// Why libxml2 could not be used: the library's name, the loader's words, and what to install.
    struct Unavailable: Error {
        let reason: String
    }

    /// The library's functions, once per process, with `xmlInitParser(3)` called (libxml2 2.9
    /// requires it before parsers are made on several threads at once; a Swift static is
    /// initialised exactly once, thread-safely). A library that cannot be loaded is every parse's
    /// error, naming it and the package to install; the host program goes on.
    static let loaded: Result<LibXML2, Unavailable> = load("libxml2.so.2")

    static func load(_ name: String) -> Result<LibXML2, Unavailable> {
        let install = "install libxml2 (Debian and Ubuntu: apt-get install libxml2; Fedora: dnf install libxml2)"
        guard let library = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            let loader = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(Unavailable(reason: "\(name), which reads GPX and TCX files, could not be loaded (\(loader)): \(install)"))
        }
        func function<F>(_ symbol: String, as type: F.Type) throws(Unavailable) -> F {
            guard let address = dlsym(library, symbol) else {
                throw Unavailable(reason: "\(name) has no \(symbol), which reading GPX and TCX needs (libxml2 2.9 or later has it): \(install)")
            }
            return unsafeBitCast(address, to: type)
        }
        do throws(Unavailable) {
            let initParser = try function("xmlInitParser", as: (@convention(c) () -> Void).self)
            let library = LibXML2(
                createPushParserCtxt: try function("xmlCreatePushParserCtxt", as: CreatePushParserCtxt.self),
                ctxtUseOptions: try function("xmlCtxtUseOptions", as: CtxtUseOptions.self),
                parseChunk: try function("xmlParseChunk", as: ParseChunk.self),
                stopParser: try function("xmlStopParser", as: OnContext.self),
                freeParserCtxt: try function("xmlFreeParserCtxt", as: OnContext.self),
                getLastError: try function("xmlCtxtGetLastError", as: CtxtGetLastError.self))
            initParser()
            return .success(library)
        } catch {
            return .failure(error)
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
