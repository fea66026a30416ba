#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FIT

// The FIT decoder under libFuzzer. scripts/fuzz-fit builds this target with
// `--sanitize fuzzer --sanitize address -Xswiftc -DFUZZING`: libFuzzer then supplies `main` and
// calls `LLVMFuzzerTestOneInput`. In a normal build it is a small command that runs the same
// checks on the files it is given (a crash input from .build-fuzz-fit/, say).
//
// Beyond "no crash, no leak, no hang", it checks what the reader promises: every message's
// content has its definition's size and every field and developer field decodes; a record's
// position is in range and its numbers finite; events come as fileStart, messages, fileEnd; a
// strict read succeeds exactly when a lenient one finds no issue, with the same messages; the
// same bytes handed out in chunks of sizes the input decides (`ChunkedInput`: the decoder's buffer
// refilled mid-header and mid-record, as a file read through zlib in pieces refills it) read the
// same as when handed out at once; and every message written back by FITWriter with its own
// definition reads back the same.

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fitFuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    check(Array(UnsafeRawBufferPointer(start: start, count: count)))
    return 0
}
#else
@main
enum FITFuzzReplay {
    static func main() throws {
        for path in CommandLine.arguments.dropFirst() {
            check(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
            print("\(path): the reader keeps its promises")
        }
    }
}
#endif

func check(_ bytes: [UInt8]) {
    let lenient = read(bytes, strict: false)
    let strict = read(bytes, strict: true)
    switch (lenient, read(bytes, strict: false, chunked: true)) {
    case let (.success(whole), .success(chunked)):
        precondition(whole.summary == chunked.summary && whole.contents == chunked.contents, "read in chunks, the bytes read otherwise")
    case let (.failure(whole), .failure(chunked)):
        precondition(whole == chunked, "read in chunks, the bytes fail otherwise: \(chunked), not \(whole)")
    default:
        preconditionFailure("read in chunks, the bytes read where they failed whole, or the other way round")
    }
    switch (lenient, strict) {
    case let (.success(loose), .success(tight)):
        precondition(loose.summary.issues.isEmpty, "a strict read succeeded where a lenient one found issues")
        precondition(loose.messages == tight.messages)
    case let (.success(loose), .failure):
        precondition(!loose.summary.issues.isEmpty, "a strict read failed where a lenient one found no issue")
    case (.failure, .success):
        preconditionFailure("a lenient read failed where a strict one succeeded")
    case (.failure, .failure):
        break
    }
}

private struct Outcome {
    var summary: FITReadSummary
    var messages: Int
    /// Each message's offset and content, in order.
    var contents: [[UInt8]] = []
}

/// The input's bytes handed out in chunks whose sizes the input decides: 1 to 256 bytes, taken
/// from the input itself as the chunks go, and every eighth 64 times that (up to 16 KB).
final class ChunkedInput: FITByteSource {
    private let bytes: [UInt8]
    private var position = 0
    private var chunks = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FITError) -> Int {
        guard position < bytes.count, buffer.count > 0 else { return 0 }
        var size = 1 + Int(bytes[(chunks &* 31 &+ 7) % bytes.count])
        if chunks % 8 == 7 { size *= 64 }
        chunks += 1
        let count = min(size, buffer.count, bytes.count - position)
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + position, byteCount: count)
        }
        position += count
        return count
    }

    var isCompressed: Bool { false }
    var consumed: Int64 { Int64(position) }
    var interruption: FITInputInterruption? { nil }
}

private func read(_ bytes: [UInt8], strict: Bool, chunked: Bool = false) -> Result<Outcome, FITError> {
    var open = false
    var messages = 0
    var rewritten = 0
    var contents: [[UInt8]] = []
    let reader = FITReader(options: FITReadOptions(strict: strict))
    let source: any FITByteSource = chunked ? ChunkedInput(bytes) : FITMemoryInput(bytes)
    do throws(FITError) {
        let summary = try reader.read(source: source, name: "fuzz.fit") { event in
            switch event {
            case .fileStart:
                precondition(!open)
                open = true
            case let .message(message):
                precondition(open)
                messages += 1
                if !strict { contents.append(withUnsafeBytes(of: message.offset) { Array($0) } + message.content) }
                guard !chunked else { return }
                validate(message)
                if rewritten < 8 {
                    rewritten += 1
                    checkRewrite(message)
                }
            case .fileEnd(let header):
                precondition(open && header.fileCRCMatches != nil)
                open = false
            }
        }
        precondition(summary.messages == messages)
        return .success(Outcome(summary: summary, messages: messages, contents: contents))
    } catch {
        _ = error.description
        return .failure(error)
    }
}

private func validate(_ message: FITMessage) {
    precondition(message.content.count == message.definition.size)
    for field in message.fields { _ = field.value.description }
    for value in message.developerValues {
        _ = value.value?.description
        if let number = value.scaledNumber { precondition(number.isFinite) }
    }
    if let record = FITRecord(message) {
        if let latitude = record.latitude, let longitude = record.longitude {
            precondition(abs(latitude) <= 90 && abs(longitude) <= 180)
        }
        for value in [record.altitude, record.speed, record.heartRate, record.cadence, record.power, record.temperature, record.distance] {
            if let value { precondition(value.isFinite) }
        }
    }
    _ = FITTotals(message)
    _ = FITEventMessage(message)
    _ = FITFileID(message)?.deviceName
    _ = FITDeviceInfo(message)?.deviceName
}

/// Writes `message` back with its own definition and reads it again: the values must be the same.
private func checkRewrite(_ message: FITMessage) {
    let definition = message.definition
    guard definition.fields.allSatisfy({ $0.size > 0 }), definition.developerFields.allSatisfy({ $0.size > 0 }) else { return }
    var values: [FITValue?] = definition.fields.map { message.value($0.number) }
    // A field number given twice: the value looked up is the first's; write the raw bytes instead.
    for (index, field) in definition.fields.enumerated() where definition.field(field.number)?.position != field.position {
        values[index] = nil
    }
    // Text the writer cannot give back as it was: not UTF-8, or filling its field with no zero after it.
    for (index, field) in definition.fields.enumerated() where field.effectiveType == .string {
        let raw = message.content[field.position..<field.position + field.size]
        let text = raw.prefix { $0 != 0 }
        if text.count == raw.count || String(validating: text, as: UTF8.self) == nil { values[index] = nil }
    }
    // Developer fields go back as their bytes: the file written holds no field descriptions.
    let developerFields = definition.developerFields.map {
        FITDeveloperFieldDefinition(number: $0.number, size: $0.size, developerIndex: $0.developerIndex)
    }
    values += definition.developerFields.map { .bytes(Array(message.content[$0.position..<$0.position + $0.size])) }
    let bytes = FITWriter.file { writer in
        writer.define(
            localType: definition.localType & 0x0F, globalNumber: definition.globalNumber, fields: definition.fields,
            developerFields: developerFields, bigEndian: definition.isBigEndian)
        writer.write(localType: definition.localType & 0x0F, values: values)
    }
    guard let again = try? FITReader(options: FITReadOptions(strict: true)).messages(of: bytes).messages.first else {
        preconditionFailure("a message written back does not read")
    }
    for (index, field) in definition.fields.enumerated() where values[index] != nil || message.value(field.number) == nil {
        precondition(
            again.value(field.number)?.description == values[index]?.description,
            "field \(field.number) of message \(definition.globalNumber) reads back as \(again.value(field.number)?.description ?? "nil"), not \(values[index]?.description ?? "nil")")
    }
    for (field, copy) in zip(definition.developerFields, again.definition.developerFields) {
        precondition(again.content[copy.position..<copy.position + copy.size] == message.content[field.position..<field.position + field.size])
    }
}
