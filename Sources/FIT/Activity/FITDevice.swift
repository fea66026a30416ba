/// The `file_id` message (0): what the file is and which device wrote it. Every FIT file begins with one.
public struct FITFileID: Sendable, Hashable {
    /// `type`: see ``FITFileType`` (4 is an activity).
    public var type: UInt8?
    /// `manufacturer` (see ``FITManufacturer``) and `product`.
    public var manufacturer: UInt16?
    /// `product`: the maker's product number.
    public var product: UInt16?
    /// `serial_number`.
    public var serialNumber: UInt32?
    /// `time_created`, seconds since 1970.
    public var timeCreated: Double?
    /// `product_name`, when the writer gave one.
    public var productName: String?

    /// The `file_id` a message holds; `nil` for any other message.
    public init?(_ message: FITMessage) {
        guard message.globalNumber == FITMessageNumber.fileID else { return nil }
        type = message.integer(0).map { UInt8(truncatingIfNeeded: $0) }
        manufacturer = message.integer(1).map { UInt16(truncatingIfNeeded: $0) }
        product = message.integer(2).map { UInt16(truncatingIfNeeded: $0) }
        serialNumber = message.integer(3).map { UInt32(truncatingIfNeeded: $0) }
        timeCreated = message.integer(4).flatMap { FITTime.seconds(since1970: UInt32(truncatingIfNeeded: $0)) }
        productName = message.string(8)
    }

    /// The file type, when this package names it.
    public var fileType: FITFileType? { type.flatMap(FITFileType.init(rawValue:)) }

    /// The device in words: its product name, else its maker and product number
    /// ("Garmin product 1036"); `nil` when the file says neither.
    public var deviceName: String? {
        FITManufacturer.deviceName(manufacturer: manufacturer, product: product, productName: productName)
    }
}

/// A `device_info` message (23): a device that took part in the activity (index 0 is the one that
/// recorded it; others are sensors).
public struct FITDeviceInfo: Sendable, Hashable {
    /// `device_index`: 0 for the creator.
    public var deviceIndex: UInt8?
    /// `manufacturer`, `product` and `serial_number`.
    public var manufacturer: UInt16?
    /// `product`: the maker's product number.
    public var product: UInt16?
    /// `serial_number`.
    public var serialNumber: UInt32?
    /// `software_version` (e.g. 3.7).
    public var softwareVersion: Double?
    /// `product_name`, when given.
    public var productName: String?

    /// The `device_info` a message holds; `nil` for any other message.
    public init?(_ message: FITMessage) {
        guard message.globalNumber == FITMessageNumber.deviceInfo else { return nil }
        deviceIndex = message.integer(0).map { UInt8(truncatingIfNeeded: $0) }
        manufacturer = message.integer(2).map { UInt16(truncatingIfNeeded: $0) }
        serialNumber = message.integer(3).map { UInt32(truncatingIfNeeded: $0) }
        product = message.integer(4).map { UInt16(truncatingIfNeeded: $0) }
        softwareVersion = message.number(5, scale: 100)
        productName = message.string(27)
    }

    /// The device in words, as ``FITFileID/deviceName``.
    public var deviceName: String? {
        FITManufacturer.deviceName(manufacturer: manufacturer, product: product, productName: productName)
    }
}

/// The `sport` message (12): the sport and its name (`"Trail Run"`).
public struct FITSportMessage: Sendable, Hashable {
    /// `sport` and `sub_sport` (see ``FITSport``).
    public var sport: UInt8?
    /// `sub_sport`.
    public var subSport: UInt8?
    /// `name`.
    public var name: String?

    /// The `sport` a message holds; `nil` for any other message.
    public init?(_ message: FITMessage) {
        guard message.globalNumber == FITMessageNumber.sport else { return nil }
        sport = message.integer(0).map { UInt8(truncatingIfNeeded: $0) }
        subSport = message.integer(1).map { UInt8(truncatingIfNeeded: $0) }
        name = message.string(3)
    }
}

/// The `activity` message (34): one per activity file, at its end.
public struct FITActivityMessage: Sendable, Hashable {
    /// Its time (the end), seconds since 1970.
    public var time: Double?
    /// `total_timer_time`, seconds.
    public var timerTime: Double?
    /// `num_sessions`.
    public var sessionCount: Int?
    /// `local_timestamp` minus `timestamp`: the offset from UTC of the device's clock, seconds.
    public var utcOffset: Int?

    /// The `activity` a message holds; `nil` for any other message.
    public init?(_ message: FITMessage) {
        guard message.globalNumber == FITMessageNumber.activity else { return nil }
        time = message.timestamp.flatMap(FITTime.seconds(since1970:))
        timerTime = message.number(0, scale: 1000)
        sessionCount = message.integer(1).map(Int.init)
        if let local = message.integer(5), let utc = message.timestamp, FITTime.seconds(since1970: utc) != nil {
            let offset = local - Int64(utc)
            if abs(offset) <= 14 * 3600 { utcOffset = Int(offset) }
        }
    }
}

/// Makers of FIT devices (the profile's `manufacturer` values) that this package names.
public enum FITManufacturer {
    /// `development` (255): what a program writing FIT files without a maker's number uses.
    public static let development: UInt16 = 255

    /// Names of the better-known makers, by number.
    public static let names: [UInt16: String] = [
        1: "Garmin", 3: "Zephyr", 5: "iDT", 7: "Quarq", 9: "Saris", 13: "Dynastream", 15: "Dynastream",
        16: "Timex", 23: "Suunto", 32: "Wahoo Fitness", 38: "o-synce", 40: "Concept2", 41: "Shimano", 48: "Pioneer",
        51: "Magellan", 63: "Specialized", 69: "Stages Cycling", 70: "Sigma Sport", 76: "Moxy", 89: "Tacx",
        95: "Stryd", 107: "Magene", 255: "development", 258: "Lezyne", 260: "Zwift", 263: "Favero", 265: "Strava",
        266: "Precor", 267: "Bryton", 268: "Sram", 269: "Navman", 276: "Polar", 277: "Shanghai Bike-Tech", 289: "Hammerhead",
        294: "Coros", 309: "Bosch",
    ]

    /// "Garmin product 1036", a product name (alone for `development`: a program's own name), or `nil`.
    static func deviceName(manufacturer: UInt16?, product: UInt16?, productName: String?) -> String? {
        if manufacturer == development, let productName { return productName }
        let maker = manufacturer.map { names[$0] ?? "manufacturer \($0)" }
        if let productName { return maker.map { productName.hasPrefix($0) ? productName : "\($0) \(productName)" } ?? productName }
        guard let maker else { return nil }
        return product.map { "\(maker) product \($0)" } ?? maker
    }
}
