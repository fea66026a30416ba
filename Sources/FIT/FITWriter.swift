/// Writes FIT files: the 14-byte header with its CRC, definition and data messages, and the file
/// CRC, as the FIT protocol lays them out. Bytes gather in ``bytes``; take them out as they come
/// (``takeBytes()``) to write a file of any length in constant memory.
///
/// The header holds the size of the data, which must be known before the first byte is written:
/// write everything once with `dataSize: nil` (the writer then only measures: no header, no
/// CRC), and again with the size measured (``dataSize``).
///
/// ```swift
/// func encode(_ writer: inout FITWriter) {
///     writer.define(localType: 0, globalNumber: FITMessageNumber.fileID, fields: [
///         FITFieldDefinition(number: 0, baseType: .enumeration), FITFieldDefinition(number: 4, baseType: .uint32)])
///     writer.write(localType: 0, values: [.integer(4), .integer(1_000_000_000)])
/// }
/// var measuring = FITWriter(dataSize: nil)
/// encode(&measuring)
/// var writer = FITWriter(dataSize: measuring.dataSize)
/// encode(&writer)
/// try writer.finish()          // throws if the two passes wrote different sizes
/// let file = writer.takeBytes()
/// ```
public struct FITWriter: Sendable {
    /// The profile version written in the header (21.32, as 2132).
    public static let profileVersion: UInt16 = 2132
    /// The protocol version written in the header: 2.0.
    public static let protocolVersion: UInt8 = 0x20

    /// Bytes written and not yet taken.
    public private(set) var bytes: [UInt8] = []
    /// Bytes of records written so far (definitions and data messages).
    public private(set) var dataSize = 0
    /// The data size the header declared; `nil` while measuring.
    public let declaredDataSize: Int?
    private var crc = FITCRC()
    private var definitions = [FITDefinition?](repeating: nil, count: 16)

    /// A writer whose header declares `dataSize` bytes of records (written at once), or, with
    /// `nil`, one that measures: it writes the records alone, for ``dataSize``.
    public init(dataSize: Int?, profileVersion: UInt16 = FITWriter.profileVersion) {
        declaredDataSize = dataSize
        bytes.reserveCapacity(64 * 1024)
        guard let dataSize else { return }
        var header: [UInt8] = [14, Self.protocolVersion, UInt8(profileVersion & 0xFF), UInt8(profileVersion >> 8)]
        header += (0..<4).map { UInt8(truncatingIfNeeded: UInt32(truncatingIfNeeded: dataSize) >> (8 * $0)) }
        header += Array(".FIT".utf8)
        let headerCRC = FITCRC.of(header)
        header += [UInt8(headerCRC & 0xFF), UInt8(headerCRC >> 8)]
        append(header)
    }

    /// A whole FIT file in memory: `body` writes the records, and is called twice, once to
    /// measure them and once to write them after the header. For tests and small files.
    ///
    /// ```swift
    /// let bytes = FITWriter.file { writer in
    ///     writer.define(localType: 0, globalNumber: FITMessageNumber.fileID, fields: [FITFieldDefinition(number: 0, baseType: .enumeration)])
    ///     writer.write(localType: 0, values: [.integer(4)])
    /// }
    /// ```
    ///
    /// `body` must write the same records both times: one that does not is a programmer mistake,
    /// and stops the program.
    public static func file(_ body: (inout FITWriter) -> Void) -> [UInt8] {
        var measuring = FITWriter(dataSize: nil)
        body(&measuring)
        var writer = FITWriter(dataSize: measuring.dataSize)
        body(&writer)
        do {
            try writer.finish()
        } catch {
            preconditionFailure("FITWriter.file: the body wrote different records the second time: \(error)")
        }
        return writer.takeBytes()
    }

    /// Takes the bytes written so far out of the writer.
    public mutating func takeBytes() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    /// Hands the bytes written so far to `body` and forgets them (no copy).
    public mutating func drain(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard !bytes.isEmpty else { return }
        try bytes.withUnsafeBytes { try body($0) }
        bytes.removeAll(keepingCapacity: true)
    }

    /// Writes a definition message: `localType` (0-15) stands for `globalNumber` with these
    /// fields from now on. Big-endian definitions are for tests of readers: devices write either.
    public mutating func define(
        localType: UInt8, globalNumber: UInt16, fields: [FITFieldDefinition],
        developerFields: [FITDeveloperFieldDefinition] = [], bigEndian: Bool = false
    ) {
        precondition(localType < 16 && fields.count < 256 && developerFields.count < 256)
        let definition = FITDefinition(
            localType: localType, globalNumber: globalNumber, isBigEndian: bigEndian, fields: fields,
            developerFields: developerFields)
        definitions[Int(localType)] = definition
        var record: [UInt8] = [0x40 | (developerFields.isEmpty ? 0 : 0x20) | localType, 0, bigEndian ? 1 : 0]
        record += bigEndian ? [UInt8(globalNumber >> 8), UInt8(globalNumber & 0xFF)] : [UInt8(globalNumber & 0xFF), UInt8(globalNumber >> 8)]
        record.append(UInt8(fields.count))
        for field in fields { record += [field.number, UInt8(field.size), field.baseType.definitionByte] }
        if !developerFields.isEmpty {
            record.append(UInt8(developerFields.count))
            for field in developerFields { record += [field.number, UInt8(field.size), field.developerIndex] }
        }
        appendRecord(record)
    }

    /// Writes a data message under `localType`: one value per field of its definition, then per
    /// developer field, in order; `nil`, a missing value or one out of its base type's range is
    /// written as the invalid value. With `timeOffset` (0-31) the record header is a
    /// compressed-timestamp header, which only local types 0-3 can have.
    public mutating func write(localType: UInt8, values: [FITValue?], timeOffset: UInt8? = nil) {
        guard let definition = definitions[Int(localType)] else {
            preconditionFailure("local type \(localType) was not defined")
        }
        precondition(timeOffset.map { $0 < 32 && localType < 4 } ?? true, "a compressed-timestamp header takes local types 0-3 and offsets 0-31")
        let start = bytes.count
        bytes.append(timeOffset.map { 0x80 | localType << 5 | $0 } ?? localType)
        for (index, field) in definition.fields.enumerated() {
            FITEncoding.append(index < values.count ? values[index] : nil, size: field.size, type: field.effectiveType,
                               bigEndian: definition.isBigEndian, to: &bytes)
        }
        for (index, field) in definition.developerFields.enumerated() {
            let position = definition.fields.count + index
            let type = field.description?.baseType ?? .byte
            FITEncoding.append(position < values.count ? values[position] : nil, size: field.size,
                               type: field.size % type.size == 0 ? type : .byte, bigEndian: definition.isBigEndian, to: &bytes)
        }
        counted(from: start)
    }

    /// Writes a data message under `localType` whose content is `content`: its fields' bytes, then
    /// its developer fields', laid out as the definition says (in its byte order), for an encoder
    /// that lays out its own bytes (a million records, without a ``FITValue`` per field). The
    /// content must have the definition's size: another size is a programmer mistake, and stops
    /// the program.
    public mutating func write(localType: UInt8, content: UnsafeRawBufferPointer) {
        guard let definition = definitions[Int(localType)] else {
            preconditionFailure("local type \(localType) was not defined")
        }
        precondition(content.count == definition.size, "a message's content has its definition's size")
        let start = bytes.count
        bytes.append(localType)
        bytes.append(contentsOf: content)
        counted(from: start)
    }

    /// Ends the file: appends the CRC of the header and records. While measuring it does nothing.
    ///
    /// Throws ``FITWriteError`` when the records written do not have the size the header
    /// declared (what was measured and what was written differ): the bytes written are then not a
    /// FIT file and must be thrown away.
    public mutating func finish() throws(FITWriteError) {
        guard let declaredDataSize else { return }
        guard dataSize == declaredDataSize else { throw FITWriteError(declaredDataSize: declaredDataSize, writtenDataSize: dataSize) }
        let value = crc.value
        bytes += [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    private mutating func appendRecord(_ record: [UInt8]) {
        let start = bytes.count
        bytes += record
        counted(from: start)
    }

    private mutating func append(_ header: [UInt8]) {
        crc.update(header)
        bytes += header
    }

    private mutating func counted(from start: Int) {
        dataSize += bytes.count - start
        if declaredDataSize != nil {
            bytes.withUnsafeBytes { crc.update(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        }
    }
}

/// The records a ``FITWriter`` wrote do not have the size its header declared: the pass that
/// measured them and the pass that wrote them wrote different records.
public struct FITWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The size the header declares.
    public var declaredDataSize: Int
    /// The size of the records written.
    public var writtenDataSize: Int

    /// `the header declared 1200 bytes of records, 1234 were written`.
    public var description: String {
        "the header declared \(declaredDataSize) bytes of records, \(writtenDataSize) were written"
    }
}

/// Values to bytes, by base type: the writer's half of ``FITBytes``.
enum FITEncoding {
    static func append(_ value: FITValue?, size: Int, type: FITBaseType, bigEndian: Bool, to bytes: inout [UInt8]) {
        switch type {
        case .string:
            // Whole characters only, and room for the terminating zero.
            var text: [UInt8] = []
            if case let .string(string)? = value {
                for scalar in string.unicodeScalars {
                    let utf8 = Array(String(scalar).utf8)
                    if text.count + utf8.count > size - 1 { break }
                    text += utf8
                }
            }
            bytes += text
            bytes += [UInt8](repeating: 0, count: max(0, size - text.count))
        case .byte:
            var raw: [UInt8] = []
            if case let .bytes(given)? = value { raw = given }
            bytes += raw.prefix(size)
            bytes += [UInt8](repeating: 0xFF, count: max(0, size - raw.count))
        default:
            guard size % type.size == 0 else {
                bytes += [UInt8](repeating: 0xFF, count: size)
                return
            }
            let count = size / type.size
            let elements: [FITValue?] = if case let .array(values) = value { values } else { [value] }
            for index in 0..<count {
                let element = index < elements.count ? elements[index] : nil
                appendBits(element.flatMap { Self.bits($0, type: type) } ?? type.invalidBits, size: type.size, bigEndian: bigEndian, to: &bytes)
            }
        }
    }

    @inline(__always)
    static func appendBits(_ bits: UInt64, size: Int, bigEndian: Bool, to bytes: inout [UInt8]) {
        for index in 0..<size {
            let shift = bigEndian ? 8 * (size - 1 - index) : 8 * index
            bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
    }

    /// The bits of `value` as `type`, or `nil` when it does not fit (written as invalid).
    static func bits(_ value: FITValue, type: FITBaseType) -> UInt64? {
        switch value {
        case let .float(number):
            if type == .float32 { return UInt64(Float(number).bitPattern) }
            if type == .float64 { return number.bitPattern }
            guard number.isFinite else { return nil }
            return bits(.integer(Int64(exactly: number.rounded()) ?? Int64.max), type: type)
        case let .integer(number):
            if type == .float32 { return UInt64(Float(number).bitPattern) }
            if type == .float64 { return Double(number).bitPattern }
            let range: ClosedRange<Int64> = switch type {
            case .sint8: -128...127
            case .sint16: -32_768...32_767
            case .sint32: Int64(Int32.min)...Int64(Int32.max)
            case .sint64: Int64.min...Int64.max
            case .uint16, .uint16z: 0...0xFFFF
            case .uint32, .uint32z: 0...0xFFFF_FFFF
            case .uint64, .uint64z: 0...Int64.max
            default: 0...0xFF
            }
            guard range.contains(number) else { return nil }
            return UInt64(bitPattern: number) & (type.size == 8 ? ~0 : (1 << UInt64(8 * type.size)) - 1)
        case let .unsigned(number):
            return type == .uint64 || type == .uint64z ? number : nil
        case .string, .bytes, .array:
            return nil
        }
    }
}
