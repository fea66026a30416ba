import ArgumentParser
import BluetoothSensors
import CommandSupport
import DBus
import Foundation

/// `workout sensors`: the Bluetooth LE workout sensors in range.
struct Sensors: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensors",
        abstract: "List the Bluetooth LE workout sensors in range: heart rate, speed and cadence, power, foot pods, treadmills, trainers.",
        discussion: """
            Scans for --scan seconds for devices that advertise a heart rate, a cycling speed and \
            cadence, a cycling power, a running speed and cadence (a foot pod) or a fitness machine \
            service (a treadmill, a smart trainer), then lists them with those BlueZ knew already: \
            address, name, services, signal strength and battery. A foot pod or a fitness machine is \
            connected for a moment (unless another program has it connected) and what it says it \
            supports is listed below it: what it measures, the targets it takes (power, resistance, \
            a simulated grade, speed, inclination) and their ranges. Give an address to \
            `workout record --sensor ADDRESS`. A sensor that is not listed may be asleep (wear the \
            strap, turn the pedals) or connected to another receiver. Exits \
            \(ExitStatus.unavailable.rawValue) when BlueZ is not on the bus, or has no adapter, or \
            its adapter is off.
            """)

    @Option(parsing: .unconditional, help: ArgumentHelp("Scan this many seconds (0: only the devices BlueZ knows).", valueName: "seconds"))
    var scan: Double = 5

    @Flag(help: "Print one JSON object per sensor (NDJSON).")
    var json = false

    @Option(help: ArgumentHelp("The D-Bus address of the bus BlueZ is on.", discussion: "Defaults to the system bus."))
    var bus: String?

    func validate() throws {
        guard scan >= 0, scan.isFinite else { throw ValidationError("--scan must be zero or more seconds, not \(scan).") }
    }

    func run() async throws {
        let address = bus.map(DBusConnection.Address.address) ?? .system
        let devices: [(device: BluetoothDevice, features: Result<BluetoothDeviceFeatures, any Error>)]
        do {
            let bluez = try BlueZ(bus: address)
            defer { bluez.close() }
            let found: [BluetoothDevice]
            if scan > 0 {
                found = try await bluez.scan(for: .milliseconds(Int64(scan * 1000))).filter { !Self.measuring($0).isEmpty }
            } else {
                _ = try await bluez.poweredAdapter()
                found = try await bluez.devices().filter { !Self.measuring($0).isEmpty }
            }
            var read: [(device: BluetoothDevice, features: Result<BluetoothDeviceFeatures, any Error>)] = []
            for device in found {
                do {
                    read.append((device, .success(try await bluez.features(of: device))))
                } catch {
                    read.append((device, .failure(error)))
                }
            }
            devices = read
        } catch let error as BluetoothError {
            Output.error("workout sensors: \(error)")
            throw ExitCode(.unavailable)
        } catch let error as DBusError {
            Output.error("workout sensors: \(error)")
            throw ExitCode(.unavailable)
        }
        for (device, features) in devices {
            let services = Self.measuring(device)
            if json {
                var object: [String: Any] = ["address": device.address, "services": services, "connected": device.isConnected]
                object["name"] = device.name
                object["rssi"] = device.rssi
                object["battery"] = device.batteryPercent
                switch features {
                case let .success(features): object.merge(SensorFeaturesReport.object(of: features)) { $1 }
                case let .failure(error): object["features_error"] = "\(error)"
                }
                Output.line(Format.jsonLine(object))
            } else {
                var parts = [device.address, device.name ?? "(no name)", services.joined(separator: ", ")]
                if let rssi = device.rssi { parts.append("\(rssi) dBm") }
                if let battery = device.batteryPercent { parts.append("battery \(battery)%") }
                if device.isConnected { parts.append("connected") }
                Output.line(parts.joined(separator: "  "))
                switch features {
                case let .success(features) where !features.description.isEmpty: Output.line("  " + features.description)
                case .success: break
                case let .failure(error): Output.line("  what it supports could not be read: \(error)")
                }
            }
        }
        if devices.isEmpty, !json {
            Output.error("workout sensors: no workout sensor in range. Is it awake (a strap worn, pedals turned) and not connected to another receiver?")
        }
    }

    /// What `device` measures for a workout: its workout services but the battery.
    private static func measuring(_ device: BluetoothDevice) -> [String] {
        device.workoutServices.filter { $0 != "battery" }
    }
}
