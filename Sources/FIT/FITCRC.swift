/// The FIT protocol's 16-bit CRC: the one a 14-byte header carries for its first 12 bytes, and
/// the one after a file's data, over the header and the data.
///
/// It is CRC-16/ARC (polynomial 0x8005, reflected, initial value 0), which the protocol
/// describes as a nibble-at-a-time loop; this computes it a byte at a time from a 256-entry
/// table, which gives the same value.
///
/// ```swift
/// var crc = FITCRC()
/// crc.update(headerBytes)
/// crc.update(dataBytes)
/// let matches = crc.value == storedCRC
/// ```
public struct FITCRC: Sendable, Hashable {
    /// The CRC of the bytes given so far.
    public private(set) var value: UInt16

    /// A CRC of nothing yet (0), or resumed from `value`.
    public init(_ value: UInt16 = 0) {
        self.value = value
    }

    /// The CRC of `bytes`.
    public static func of(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc = FITCRC()
        crc.update(bytes)
        return crc.value
    }

    /// Adds `bytes`.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = value
        for byte in bytes {
            crc = (crc >> 8) ^ FITCRC.table[Int((crc ^ UInt16(byte)) & 0xFF)]
        }
        value = crc
    }

    /// Adds the bytes of a buffer (the reader's hot path).
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = value
        FITCRC.table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = (crc >> 8) ^ table[Int((crc ^ UInt16(byte)) & 0xFF)]
            }
        }
        value = crc
    }

    /// The byte-at-a-time table of the reflected polynomial 0xA001.
    static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? (crc >> 1) ^ 0xA001 : crc >> 1
        }
        return crc
    }
}
