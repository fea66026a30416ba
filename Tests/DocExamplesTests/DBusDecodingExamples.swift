import DBus
import Foundation
import GeoClue
import LocationCore
import Testing

// The examples of the D-Bus layer's typed reading (DBusDecodable and the calls, properties and
// signals that use it), shared connections and owned descriptors, as printed in their `///`
// comments; ReadmeTests checks that each is here. The types the examples declare are declared
// here as printed, and the tests below decode with them.

// DBus/Decoding/DBusDecodable.swift
/// The arguments of GeoClue's `LocationUpdated` signal (`oo`).
struct LocationUpdated: DBusDecodable {
    var old: String
    var new: String

    init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        old = try decoder.decode()
        new = try decoder.decode()
    }
}

// DBus/Decoding/DBusDecodable.swift
/// What a program reads of BlueZ's `org.bluez.Battery1`.
struct BatteryProperties: DBusKeyedDecodable {
    var percentage: Int?

    init() {}

    mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
        if key == "Percentage" { percentage = try value.decode() }
    }
}

// DBus/Decoding/DBusDecoder.swift
struct Timestamp: DBusDecodable {   // GeoClue's (tt): seconds and microseconds
    var seconds: UInt64
    var microseconds: UInt64

    init(from decoder: inout DBusDecoder) throws(DBusDecodingError) {
        (seconds, microseconds) = try decoder.decodeStructure { fields throws(DBusDecodingError) in
            (try fields.decode(), try fields.decode())
        }
    }
}

/// One of BlueZ's objects, for the examples that list them: its battery, if it has one.
struct BlueZObject: DBusKeyedDecodable {
    var battery: BatteryProperties?

    mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
        if key == "org.bluez.Battery1" { battery = try value.decode() }
    }
}

/// A device's `Connected`, for the examples that watch it.
struct DeviceProperties: DBusKeyedDecodable {
    var connected: Bool?

    mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
        if key == "Connected" { connected = try value.decode() }
    }
}

/// A characteristic's `Value`, for the example that batches notifications.
struct CharacteristicValue: DBusKeyedDecodable {
    var value: [UInt8]?

    mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
        if key == "Value" { self.value = try value.decode() }
    }
}

enum DBusDecodingExamples {
    // DBus/DBusFileDescriptor.swift
    static func descriptor(_ bus: DBusConnection, _ destination: String, _ path: String, _ interface: String) async throws {
        let reply = try await bus.call(destination, path: path, interface: interface, member: "Open")
        if case let .unixFileDescriptor(file)? = reply.first, let descriptor = file.take() {
            defer { close(descriptor) }   // taken: ours to close
            _ = write(descriptor, "x", 1)
        }
    }

    // DBus/DBusSignal.swift
    static func typedSignal(_ bus: DBusConnection, _ rule: DBusMatchRule) async throws {
        let updates = try await bus.signals(matching: rule, as: LocationUpdated.self)
        for await update in updates { print(update.path, update.arguments.new) }
    }

    // DBus/DBusConnection+Shared.swift
    static func shared() async throws {
        let bus = try DBusConnection.shared(.system)
        let owner = try await bus.nameOwner(of: "org.bluez")
        _ = owner
    }

    // DBus/DBusConnection+Typed.swift
    static func typedCall(_ bus: DBusConnection) async throws -> [String: BlueZObject] {
        let objects = try await bus.call(
            "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects",
            returning: [String: BlueZObject].self)
        return objects
    }

    // DBus/DBusConnection+Typed.swift
    static func typedSignals(_ bus: DBusConnection, _ devicePath: String) async throws {
        let changes = try await bus.signals(
            matching: .propertiesChanged(path: devicePath), as: DBusPropertiesChanged<DeviceProperties>.self)
        for await change in changes where change.arguments.changed.connected == false { break }
    }

    // DBus/DBusConnection+Typed.swift
    static func batches(_ bus: DBusConnection, _ characteristicPath: String) async throws -> DBusRegistration {
        let notifications = try await bus.onSignals(
            matching: .propertiesChanged(sender: "org.bluez", path: characteristicPath, interface: "org.bluez.GattCharacteristic1"),
            as: DBusPropertiesChanged<CharacteristicValue>.self, readingAtMostEvery: .milliseconds(20)
        ) { batch in
            for change in batch { print(change.changed.value ?? []) }
        }
        return notifications
    }

    // DBus/DBusStandardSignals.swift
    static func propertiesChanged(_ bus: DBusConnection, _ devicePath: String) async throws {
        struct DeviceProperties: DBusKeyedDecodable {
            var connected: Bool?
            init() {}
            mutating func decode(key: String, from value: inout DBusDecoder) throws(DBusDecodingError) {
                if key == "Connected" { connected = try value.decode() }
            }
        }
        let changes = try await bus.signals(
            matching: .propertiesChanged(sender: "org.bluez", path: devicePath, interface: "org.bluez.Device1"),
            as: DBusPropertiesChanged<DeviceProperties>.self)
        _ = changes
    }

    // GeoClue/GeoClueLocation.swift
    static func geoClueLocation(_ bus: DBusConnection, _ locationPath: String) async throws -> Location? {
        let properties = try await bus.properties(
            GeoClueLocationProperties.self, of: GeoClueNames.location, at: locationPath, on: GeoClueNames.service)
        let fix = Location(geoClue: properties)
        return fix
    }
}

/// The example types read what their comments say they read.
@Suite("API reference examples: D-Bus decoding")
struct DBusDecodingExampleTests {
    @Test func theExampleTypesReadWhatTheySay() throws {
        let updated = try DBusValue.decode(LocationUpdated.self, from: [.objectPath("/"), .objectPath("/org/freedesktop/GeoClue2/Client/1/Location/0")])
        #expect(updated.old == "/" && updated.new == "/org/freedesktop/GeoClue2/Client/1/Location/0")
        let battery = try DBusValue.variantDictionary(["Percentage": .byte(81), "Other": "passed over"]).decode(BatteryProperties.self)
        #expect(battery.percentage == 81)
        let stamp = try DBusValue.structure([.uint64(1_700_000_000), .uint64(250_000)]).decode(Timestamp.self)
        #expect(stamp.seconds == 1_700_000_000 && stamp.microseconds == 250_000)
    }
}
