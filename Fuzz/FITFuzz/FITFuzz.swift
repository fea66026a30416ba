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
// strict read succeeds exactly when a lenient one finds no issue, with the same messages; and
// every message written back by FITWriter with its own definition reads back the same.

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
}

private func read(_ bytes: [UInt8], strict: Bool) -> Result<Outcome, FITError> {
    var open = false
    var messages = 0
    var rewritten = 0
    do {
        let summary = try FITReader(options: FITReadOptions(strict: strict)).read(data: bytes, name: "fuzz.fit") { event in
            switch event {
            case .fileStart:
                precondition(!open)
                open = true
            case let .message(message):
                precondition(open)
                messages += 1
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
        return .success(Outcome(summary: summary, messages: messages))
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
