import DBus

/// One of BlueZ's objects, as `GetManagedObjects` and `InterfacesAdded` give it: the properties
/// of those of its interfaces a workout reads (`Adapter1`, `Device1`, `Battery1`,
/// `GattCharacteristic1`), read straight from the message; the others are passed over.
struct BlueZObject: DBusKeyedDecodable {
    var adapter: AdapterProperties?
    var device: DeviceProperties?
    var battery: BatteryProperties?
    var characteristic: CharacteristicProperties?

    mutating func decode(key interface: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
        switch interface {
        case "org.bluez.Adapter1": adapter = try value.decode()
        case "org.bluez.Device1": device = try value.decode()
        case "org.bluez.Battery1": battery = try value.decode()
        case "org.bluez.GattCharacteristic1": characteristic = try value.decode()
        default: break
        }
    }
}

/// `org.bluez.Adapter1`: what a scan needs.
struct AdapterProperties: DBusKeyedDecodable {
    var address: String?
    var powered: Bool?
    var discovering: Bool?

    mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
        switch key {
        case "Address": address = try value.decode()
        case "Powered": powered = try value.decode()
        case "Discovering": discovering = try value.decode()
        default: break
        }
    }
}

/// `org.bluez.Device1`: who the device is, what it offers, whether it is connected; in a
/// `PropertiesChanged`, only what changed.
struct DeviceProperties: DBusKeyedDecodable {
    var address: String?
    var name: String?
    var alias: String?
    var rssi: Int?
    var uuids: [String]?
    var connected: Bool?
    var servicesResolved: Bool?

    mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
        switch key {
        case "Address": address = try value.decode()
        case "Name": name = try value.decode()
        case "Alias": alias = try value.decode()
        case "RSSI": rssi = try value.decode()
        case "UUIDs": uuids = try value.decode()
        case "Connected": connected = try value.decode()
        case "ServicesResolved": servicesResolved = try value.decode()
        default: break
        }
    }
}

/// `org.bluez.Battery1`: the charge BlueZ reads from the Battery Service itself.
struct BatteryProperties: DBusKeyedDecodable {
    var percentage: Int?

    mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
        if key == "Percentage" { percentage = try value.decode() }
    }
}

/// `org.bluez.GattCharacteristic1`: what it is, and its value (a notification's bytes).
struct CharacteristicProperties: DBusKeyedDecodable {
    var uuid: String?
    var value: [UInt8]?

    mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
        switch key {
        case "UUID": uuid = try value.decode()
        case "Value": self.value = try value.decode()
        default: break
        }
    }
}

/// What changes at a device's path: `Device1`'s connection and services, `Battery1`'s charge
/// (`PropertiesChanged` says which interface; the names do not overlap).
struct DeviceChanges: DBusKeyedDecodable {
    var connected: Bool?
    var servicesResolved: Bool?
    var percentage: Int?

    mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
        switch key {
        case "Connected": connected = try value.decode()
        case "ServicesResolved": servicesResolved = try value.decode()
        case "Percentage": percentage = try value.decode()
        default: break
        }
    }
}

/// A notification: the new `Value` in a characteristic's `PropertiesChanged` (`sa{sv}as`), read
/// as the bytes alone. The match rule names the characteristic and the interface, so the
/// interface's name (the first argument) and the invalidated names (the third) are not read.
struct NotifiedValue: DBusDecodable {
    var bytes: [UInt8]?

    init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        try decoder.skip()
        bytes = try decoder.decode(CharacteristicProperties.self).value
    }
}
