/// Reading values out of a message's bytes: the one place that knows byte order, sign extension
/// and the invalid values of the base types.
enum FITBytes {
    /// The `size`-byte unsigned number at `position`, in the given byte order. `size` is 1, 2, 4
    /// or 8, and the bytes are there (a definition's fields lie inside its content).
    @inline(__always)
    static func bits(_ bytes: [UInt8], at position: Int, size: Int, bigEndian: Bool) -> UInt64 {
        bytes.withUnsafeBufferPointer { buffer in
            // The sizes of the numeric base types, read whole.
            let raw = UnsafeRawBufferPointer(buffer)
            switch size {
            case 1:
                return UInt64(buffer[position])
            case 2:
                let value = raw.loadUnaligned(fromByteOffset: position, as: UInt16.self)
                return UInt64(bigEndian ? UInt16(bigEndian: value) : UInt16(littleEndian: value))
            case 4:
                let value = raw.loadUnaligned(fromByteOffset: position, as: UInt32.self)
                return UInt64(bigEndian ? UInt32(bigEndian: value) : UInt32(littleEndian: value))
            case 8:
                let value = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                return bigEndian ? UInt64(bigEndian: value) : UInt64(littleEndian: value)
            default:
                break
            }
            var value: UInt64 = 0
            if bigEndian {
                for index in 0..<size { value = value << 8 | UInt64(buffer[position + index]) }
            } else {
                for index in stride(from: size - 1, through: 0, by: -1) { value = value << 8 | UInt64(buffer[position + index]) }
            }
            return value
        }
    }

    /// `bits` as an integer of `type`, sign-extended for signed types; `nil` for an unsigned
    /// 64-bit value past `Int64.max`.
    @inline(__always)
    static func integer(_ bits: UInt64, type: FITBaseType) -> Int64? {
        switch type {
        case .sint8: Int64(Int8(truncatingIfNeeded: bits))
        case .sint16: Int64(Int16(truncatingIfNeeded: bits))
        case .sint32: Int64(Int32(truncatingIfNeeded: bits))
        case .sint64: Int64(bitPattern: bits)
        default: bits <= UInt64(Int64.max) ? Int64(bits) : nil
        }
    }

    /// `bits` as a number of `type` (any numeric type).
    @inline(__always)
    static func double(_ bits: UInt64, type: FITBaseType) -> Double? {
        switch type {
        case .float32: Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
        case .float64: Double(bitPattern: bits)
        case .sint8, .sint16, .sint32, .sint64: integer(bits, type: type).map(Double.init)
        default: Double(bits)
        }
    }

    /// Text up to the first zero byte, `nil` when empty.
    static func string(_ bytes: ArraySlice<UInt8>) -> String? {
        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        guard end > bytes.startIndex else { return nil }
        return String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self)
    }

    /// The value of a field of `size` bytes at `position` read as `type`; `nil` when invalid.
    static func value(_ bytes: [UInt8], position: Int, size: Int, type: FITBaseType, bigEndian: Bool) -> FITValue? {
        guard size > 0, position + size <= bytes.count else { return nil }
        switch type {
        case .string:
            return string(bytes[position..<position + size]).map(FITValue.string)
        case .byte:
            let slice = bytes[position..<position + size]
            return slice.allSatisfy({ $0 == 0xFF }) ? nil : .bytes(Array(slice))
        default:
            let count = size / type.size
            func element(_ index: Int) -> FITValue? {
                let raw = bits(bytes, at: position + index * type.size, size: type.size, bigEndian: bigEndian)
                guard raw != type.invalidBits else { return nil }
                if type.isFloatingPoint { return double(raw, type: type).map(FITValue.float) }
                if let value = integer(raw, type: type) { return .integer(value) }
                return .unsigned(raw)
            }
            if count == 1 { return element(0) }
            let values = (0..<count).map(element)
            return values.allSatisfy({ $0 == nil }) ? nil : .array(values)
        }
    }
}
