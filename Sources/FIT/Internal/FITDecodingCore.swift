/// The FIT decoder behind ``FITReader``: a buffer over the byte source, the file headers and CRCs,
/// and the records of each file. One instance reads one input, on one thread.
///
/// The buffer holds the bytes not yet consumed; ``ensure(_:)`` refills it (moving what is left to
/// its front) until a whole header or record is in it, so a record is always decoded from
/// contiguous bytes and memory stays one buffer whatever the file's size.
final class FITDecodingCore {
    let file: String
    let options: FITReadOptions
    private let source: FITByteSource
    private let handler: (FITEvent) throws -> Void
    /// Called after each refill with the bytes of the file consumed so far.
    var progress: ((Int64) -> Void)?

    private var summary: FITReadSummary
    private let buffer: UnsafeMutableRawBufferPointer
    /// The unread bytes are `buffer[start..<end]`; `base` is the input offset of `buffer[0]`.
    private var start = 0
    private var end = 0
    private var base = 0
    private var exhausted = false

    // The file being read.
    private var definitions = [FITDefinition?](repeating: nil, count: 16)
    private var descriptions: [UInt16: FITDeveloperFieldDescription] = [:]
    private var lastTimestamp: UInt32?
    private var crc = FITCRC()
    private var fileIndex = 0
    /// The content of the message being delivered, reused when the handler keeps no copy.
    private var scratch: [UInt8] = []

    /// The most developer field descriptions kept per file; later ones leave their fields raw.
    static let maximumDescriptions = 4_096
    /// The most issues listed; past it they are counted in the last.
    static let maximumIssues = 100

    init(file: String, options: FITReadOptions, source: FITByteSource, handler: @escaping (FITEvent) throws -> Void) {
        self.file = file
        self.options = options
        self.source = source
        self.handler = handler
        summary = FITReadSummary(file: file)
        buffer = .allocate(byteCount: FITReader.bufferSize, alignment: 16)
    }

    deinit {
        buffer.deallocate()
    }

    /// The input offset of the next unread byte.
    private var offset: Int { base + start }

    private func byte(_ index: Int) -> UInt8 { buffer[start + index] }

    private func uint16(_ index: Int, bigEndian: Bool = false) -> UInt16 {
        let (a, b) = (UInt16(byte(index)), UInt16(byte(index + 1)))
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    /// Makes at least `count` unread bytes available; `false` when the input ends first.
    private func ensure(_ count: Int) throws(FITError) -> Bool {
        if end - start >= count { return true }
        if start > 0 {
            if end > start { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: end - start) }
            base += start
            end -= start
            start = 0
        }
        while end < count, !exhausted {
            let read = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...]))
            if read == 0 { exhausted = true } else { end += read }
            progress?(source.consumed)
        }
        return end >= count
    }

    /// Consumes `count` available bytes, adding them to the file's CRC.
    private func consume(_ count: Int) {
        crc.update(UnsafeRawBufferPointer(rebasing: buffer[start..<start + count]))
        start += count
        summary.bytes = offset
    }

    /// Whether the input's early end (gzip data cut off or damaged) was reported.
    private var interruptionReported = false

    /// A problem a lenient read goes past (strict: throws it). A file found cut off where its
    /// gzip data stopped early says so (as damage, when that data was damaged).
    private func report(_ error: FITError, consequence: String) throws(FITError) {
        var error = error
        if case let .truncated(file, offset, reason) = error, exhausted, let interruption = source.interruption, !interruptionReported {
            interruptionReported = true
            let reason = "\(reason) (\(interruption.reason), after \(base + end) bytes of FIT data)"
            error = interruption.isDamage
                ? .malformed(file: file, offset: offset, reason: reason) : .truncated(file: file, offset: offset, reason: reason)
        }
        if options.strict { throw error }
        if summary.issues.count < Self.maximumIssues { summary.issues.append(FITIssue(error, consequence: consequence)) }
    }

    /// The input's early end as an error at `offset`, the end of the FIT data inflated before it.
    private func interrupted(_ interruption: FITInputInterruption, at offset: Int) -> FITError {
        interruptionReported = true
        let reason = "\(interruption.reason), after \(offset) bytes of FIT data"
        return interruption.isDamage
            ? .malformed(file: file, offset: offset, reason: reason) : .truncated(file: file, offset: offset, reason: reason)
    }

    private func emit(_ event: FITEvent, at offset: Int) throws(FITError) {
        do {
            try handler(event)
        } catch {
            throw .handlerFailed(file: file, offset: offset, reason: String(describing: error))
        }
    }

    // MARK: - Files

    func run() throws(FITError) -> FITReadSummary {
        while true {
            guard try ensure(1) else {
                if fileIndex == 0, let interruption = source.interruption { throw interrupted(interruption, at: 0) }
                if fileIndex == 0 { throw .notFIT(file: file, reason: "the file is empty") }
                break
            }
            guard var header = try readHeader() else { break }
            summary.fileCount += 1
            if summary.files.count < FITReadSummary.maximumFilesListed { summary.files.append(header) }
            try emit(.fileStart(header), at: header.offset)
            guard try readRecords(until: header.offset + header.size + header.dataSize) else { break }
            let crcOffset = offset
            guard try ensure(2) else {
                try report(.truncated(file: file, offset: crcOffset, reason: "the file ends before its CRC, after its data"),
                           consequence: "its data was read")
                break
            }
            let stored = uint16(0)
            let computed = crc.value
            start += 2
            summary.bytes = offset
            header.fileCRCMatches = stored == computed
            if fileIndex < summary.files.count { summary.files[fileIndex] = header }
            if stored != computed {
                try report(.badCRC(file: file, offset: crcOffset, reason: "the file's CRC is \(Self.hex(stored)), its content's \(Self.hex(computed))"),
                           consequence: "read anyway")
            }
            try emit(.fileEnd(header), at: crcOffset)
            fileIndex += 1
        }
        // Gzip data cut off (or damaged) after whole FIT files, or where the decoder stopped for
        // another reason: the FIT data read stands, the file is still damaged.
        if let interruption = source.interruption, !interruptionReported {
            try report(interrupted(interruption, at: base + end), consequence: "the FIT data before it was read")
        }
        summary.compressed = source.isCompressed
        return summary
    }

    /// Reads the header of the next file of the chain; `nil` when what follows a file is not
    /// another (reported; the first file's header not being one throws).
    private func readHeader() throws(FITError) -> FITFileHeader? {
        let at = offset
        func reject(_ reason: String) throws(FITError) -> FITFileHeader? {
            if fileIndex == 0 { throw .notFIT(file: file, reason: reason) }
            try report(.malformed(file: file, offset: at, reason: "what follows FIT file \(fileIndex) of the chain is not another FIT file: \(reason)"),
                       consequence: "reading stopped there; the files before it were read")
            return nil
        }
        guard try ensure(12) else {
            if fileIndex == 0, let interruption = source.interruption { throw interrupted(interruption, at: base + end) }
            return try reject("\(end - start) byte\(end - start == 1 ? " is" : "s are") too few for a FIT header (12 bytes)")
        }
        let size = Int(byte(0))
        guard size >= 12 else { return try reject("its header size is \(size) bytes, not 12 or 14") }
        guard byte(8) == 0x2E, byte(9) == 0x46, byte(10) == 0x49, byte(11) == 0x54 else {
            return try reject("its header does not end in \".FIT\"")
        }
        guard try ensure(size) else {
            try report(.truncated(file: file, offset: at, reason: "the file ends inside a \(size)-byte header"), consequence: "reading stopped there")
            return nil
        }
        var header = FITFileHeader(
            index: fileIndex, offset: at, size: size, protocolVersion: byte(1), profileVersion: uint16(2),
            dataSize: Int(UInt32(byte(4)) | UInt32(byte(5)) << 8 | UInt32(byte(6)) << 16 | UInt32(byte(7)) << 24))
        if size >= 14 {
            let stored = uint16(12)
            header.headerCRC = stored
            let computed = FITCRC.of(UnsafeRawBufferPointer(rebasing: buffer[start..<start + 12]))
            if stored != 0, stored != computed {
                try report(.badCRC(file: file, offset: at, reason: "the header's CRC is \(Self.hex(stored)), its first 12 bytes' \(Self.hex(computed))"),
                           consequence: "read anyway")
            }
        }
        crc = FITCRC()
        consume(size)
        definitions = [FITDefinition?](repeating: nil, count: 16)
        descriptions = [:]
        lastTimestamp = nil
        return header
    }

    // MARK: - Records

    /// Reads records up to `dataEnd`; `false` when the read stopped partway (reported).
    private func readRecords(until dataEnd: Int) throws(FITError) -> Bool {
        while offset < dataEnd {
            let at = offset
            guard try ensure(1) else {
                try report(.truncated(file: file, offset: at, reason: "the file ends inside its data, which the header says runs to byte \(dataEnd)"),
                           consequence: "what came before was read")
                return false
            }
            let header = byte(0)
            let complete: Bool
            if header & 0x80 != 0 {
                complete = try readData(local: Int(header >> 5 & 0x03), timeOffset: header & 0x1F, at: at, dataEnd: dataEnd)
            } else if header & 0x40 != 0 {
                complete = try readDefinition(local: Int(header & 0x0F), developer: header & 0x20 != 0, at: at, dataEnd: dataEnd)
            } else {
                complete = try readData(local: Int(header & 0x0F), timeOffset: nil, at: at, dataEnd: dataEnd)
            }
            guard complete else { return false }
        }
        return true
    }

    /// Makes a record of `size` bytes at `at` available, or reports why it cannot be read.
    private func record(_ size: Int, at: Int, dataEnd: Int, what: String) throws(FITError) -> Bool {
        guard try ensure(size) else {
            try report(.truncated(file: file, offset: at, reason: "the file ends inside \(what) of \(size) bytes"),
                       consequence: "what came before was read")
            return false
        }
        guard at + size <= dataEnd else {
            try report(.malformed(file: file, offset: at, reason: "\(what) of \(size) bytes runs past the end of the data the header declares (byte \(dataEnd))"),
                       consequence: "reading stopped there; what came before was read")
            return false
        }
        return true
    }

    private func readDefinition(local: Int, developer: Bool, at: Int, dataEnd: Int) throws(FITError) -> Bool {
        guard try record(6, at: at, dataEnd: dataEnd, what: "a definition message") else { return false }
        let architecture = byte(2)
        guard architecture <= 1 else {
            try report(.malformed(file: file, offset: at, reason: "a definition message gives the architecture \(architecture), neither 0 (little endian) nor 1 (big endian)"),
                       consequence: "reading stopped there; what came before was read")
            return false
        }
        let bigEndian = architecture == 1
        let global = uint16(3, bigEndian: bigEndian)
        let fieldCount = Int(byte(5))
        var size = 6 + 3 * fieldCount
        guard try record(size + (developer ? 1 : 0), at: at, dataEnd: dataEnd, what: "a definition message") else { return false }
        let developerCount = developer ? Int(byte(size)) : 0
        if developer {
            size += 1 + 3 * developerCount
            guard try record(size, at: at, dataEnd: dataEnd, what: "a definition message") else { return false }
        }
        var fields: [FITFieldDefinition] = []
        fields.reserveCapacity(fieldCount)
        for index in 0..<fieldCount {
            let position = 6 + 3 * index
            fields.append(FITFieldDefinition(number: byte(position), baseType: FITBaseType(definitionByte: byte(position + 2)), size: Int(byte(position + 1))))
        }
        var developerFields: [FITDeveloperFieldDefinition] = []
        for index in 0..<developerCount {
            let position = 7 + 3 * fieldCount + 3 * index
            let (number, developerIndex) = (byte(position), byte(position + 2))
            developerFields.append(FITDeveloperFieldDefinition(
                number: number, size: Int(byte(position + 1)), developerIndex: developerIndex,
                description: descriptions[UInt16(developerIndex) << 8 | UInt16(number)]))
        }
        definitions[local] = FITDefinition(
            localType: UInt8(local), globalNumber: global, isBigEndian: bigEndian, fields: fields,
            developerFields: developerFields, offset: at)
        summary.definitions += 1
        consume(size)
        return true
    }

    private func readData(local: Int, timeOffset: UInt8?, at: Int, dataEnd: Int) throws(FITError) -> Bool {
        guard let definition = definitions[local] else {
            try report(.malformed(file: file, offset: at, reason: "a data message of local type \(local), which no definition message gave"),
                       consequence: "reading stopped there; what came before was read")
            return false
        }
        guard try record(1 + definition.size, at: at, dataEnd: dataEnd, what: "a data message") else { return false }
        var compressedTimestamp: UInt32?
        if let timeOffset {
            summary.compressedTimestampMessages += 1
            if let last = lastTimestamp {
                var time = last & ~0x1F | UInt32(timeOffset)
                if UInt32(timeOffset) < last & 0x1F { time &+= 0x20 }
                compressedTimestamp = time
                lastTimestamp = time
            }
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start + 1..<start + 1 + definition.size]))
        consume(1 + definition.size)
        let message = FITMessage(
            definition: definition, content: scratch, offset: at, fileIndex: fileIndex, compressedTimestamp: compressedTimestamp)
        if let time = message.integer(FITField.timestamp) { lastTimestamp = UInt32(truncatingIfNeeded: time) }
        if definition.globalNumber == FITMessageNumber.fieldDescription { describe(message) }
        summary.messages += 1
        try emit(.message(message), at: at)
        return true
    }

    /// Keeps what a `field_description` message says, for the definitions that follow it.
    private func describe(_ message: FITMessage) {
        guard let index = message.integer(0), let number = message.integer(1), let type = message.integer(2),
              descriptions.count < Self.maximumDescriptions || descriptions[UInt16(index & 0xFF) << 8 | UInt16(number & 0xFF)] != nil
        else { return }
        let description = FITDeveloperFieldDescription(
            developerIndex: UInt8(truncatingIfNeeded: index), number: UInt8(truncatingIfNeeded: number),
            baseType: FITBaseType(definitionByte: UInt8(truncatingIfNeeded: type)),
            name: message.string(3), units: message.string(8),
            scale: message.number(6).flatMap { $0 == 0 ? nil : $0 }, offset: message.number(7),
            nativeMessage: message.integer(14).map { UInt16(truncatingIfNeeded: $0) },
            nativeField: message.integer(15).map { UInt8(truncatingIfNeeded: $0) })
        descriptions[UInt16(description.developerIndex) << 8 | UInt16(description.number)] = description
    }

    static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }
}
