import BluetoothSensors
import Foundation
import Synchronization

/// What a recording says of one Bluetooth sensor: a line on standard error when it connects, is
/// lost and comes back, and its figures at the end (a line, or an object of the JSON).
final class SensorReport: Sendable {
    private struct State {
        var connected = false
        var everConnected = false
        var saidNotFound = false
    }

    let address: String
    private let state = Mutex(State())

    init(address: String) {
        self.address = address
    }

    /// The line to print for `status`, when it tells something new.
    func line(for status: BluetoothSensorStatus) -> String? {
        let name = status.name.map { "sensor \(address) (\($0))" } ?? "sensor \(address)"
        return state.withLock { state in
            switch status.connection {
            case .connected where !state.connected:
                state.connected = true
                defer { state.everConnected = true }
                if state.everConnected {
                    return "\(name) is back after \(Self.seconds(status.gapTime)) gone in all (\(status.gaps) gap\(status.gaps == 1 ? "" : "s"))."
                }
                var parts = ["\(name) connected: " + (status.services.isEmpty ? "no workout service" : status.services.joined(separator: ", "))]
                if let machine = status.fitnessMachine { parts.append((machine.kind == .indoorBike ? "an " : "a ") + "\(machine.kind)") }
                if let battery = status.batteryPercent { parts.append("battery \(battery)%") }
                if let location = status.bodySensorLocation, location != .other { parts.append("worn on the \(location)") }
                return parts.joined(separator: ", ") + "."
            case .waitingToReconnect where state.connected:
                state.connected = false
                let reason = status.lastError.map { ": \($0)" } ?? "."
                return "\(name) was lost; connecting again\(reason)"
            case .waitingToReconnect where !state.everConnected && !state.saidNotFound:
                state.saidNotFound = true
                let reason = status.lastError.map { "\($0)" } ?? "it did not answer."
                return "\(name) is not connected yet; trying on: \(reason)"
            case .stopped, .connecting, .connected, .waitingToReconnect:
                return nil
            }
        }
    }

    /// Its figures at the end, in a line.
    func summary(of status: BluetoothSensorStatus) -> String {
        let name = status.name.map { "sensor \(address) (\($0))" } ?? "sensor \(address)"
        guard state.withLock({ $0.everConnected }) || status.notifications > 0 else {
            return "\(name) never connected" + (status.lastError.map { ": \($0)" } ?? ".")
        }
        var parts = ["\(status.notifications) measurement\(status.notifications == 1 ? "" : "s")"]
        if status.gaps > 0 { parts.append("\(status.gaps) gap\(status.gaps == 1 ? "" : "s") (\(Self.seconds(status.gapTime)))") }
        let dropped = status.dropped.values.reduce(0, +)
        if dropped > 0 {
            let reasons = status.dropped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.replacingOccurrences(of: "_", with: " "))" }
            parts.append("\(dropped) malformed dropped (\(reasons.joined(separator: ", ")))")
        }
        if let battery = status.batteryPercent { parts.append("battery \(battery)%") }
        if let machine = status.fitnessMachine, machine.targetsRestored > 0 {
            parts.append("its targets set again \(machine.targetsRestored) time\(machine.targetsRestored == 1 ? "" : "s")")
        }
        return "\(name): " + parts.joined(separator: ", ") + "."
    }

    /// Its figures at the end, for the JSON object.
    static func object(of status: BluetoothSensorStatus) -> [String: Any] {
        var object: [String: Any] = [
            "address": status.address, "services": status.services, "measurements": status.notifications,
            "dropped": status.dropped, "gaps": status.gaps, "gap_seconds": seconds(of: status.gapTime),
        ]
        object["name"] = status.name
        object["battery"] = status.batteryPercent
        object["body_location"] = status.bodySensorLocation.map { "\($0)" }
        object["stride_length"] = status.strideLength
        if let machine = status.fitnessMachine {
            var entry: [String: Any] = [
                "type": "\(machine.kind)", "control": "\(machine.control)", "targets_restored": machine.targetsRestored,
                "late_responses": machine.lateResponses,
            ]
            entry["restore_error"] = machine.restoreError.map { "\($0)" }
            object["fitness_machine"] = entry
        }
        return object
    }

    private static func seconds(of duration: Duration) -> Double {
        ((Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18) * 1000).rounded() / 1000
    }

    private static func seconds(_ duration: Duration) -> String {
        Format.duration(seconds(of: duration))
    }
}

/// What `workout sensors --json` says of a foot pod or a fitness machine: its features, targets
/// and ranges, under `foot_pod` and `fitness_machine`.
enum SensorFeaturesReport {
    static func object(of features: BluetoothDeviceFeatures) -> [String: Any] {
        var object: [String: Any] = [:]
        if let rsc = features.rsc { object["foot_pod"] = ["features": rsc.names] }
        if let machine = features.fitnessMachine {
            var ranges: [String: Any] = [:]
            for (kind, range) in machine.ranges {
                ranges[key(kind)] = ["minimum": range.minimum, "maximum": range.maximum, "increment": range.increment, "unit": kind.unit]
            }
            var entry: [String: Any] = ["type": "\(machine.kind)", "ranges": ranges]
            entry["features"] = machine.feature?.machine.names
            entry["targets"] = machine.feature?.targets.names
            entry["training_status"] = machine.trainingStatus.map { "\($0.status)" }
            object["fitness_machine"] = entry
        }
        if !features.dropped.isEmpty { object["dropped"] = features.dropped }
        return object
    }

    /// A range's key: `speed`, `inclination`, `resistance_level`, `heart_rate`, `power`.
    private static func key(_ kind: SupportedRange.Kind) -> String {
        kind.quantity.replacingOccurrences(of: " ", with: "_")
    }
}
