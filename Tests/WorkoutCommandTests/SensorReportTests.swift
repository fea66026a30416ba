import BluetoothSensors
import Foundation
import Testing
@testable import WorkoutCommand

/// What `workout record` says of a trainer: its kind when it connects, the targets set again
/// after a drop in its summary, and its control in the JSON.
@Suite struct SensorReportTests {
    @Test func aTrainersLinesSayWhatItIsAndWhatWasSetAgain() throws {
        let report = SensorReport(address: "C0:FF:EE:00:00:10")
        var status = BluetoothSensorStatus(address: "C0:FF:EE:00:00:10")
        status.name = "KICKR"
        status.services = ["fitness machine"]
        status.fitnessMachine = BluetoothSensorStatus.FitnessMachine(kind: .indoorBike)
        status.connection = .connected
        #expect(report.line(for: status) == "sensor C0:FF:EE:00:00:10 (KICKR) connected: fitness machine, an indoor bike.")
        status.notifications = 3600
        status.fitnessMachine?.targetsRestored = 1
        status.fitnessMachine?.control = .granted
        #expect(report.summary(of: status) == "sensor C0:FF:EE:00:00:10 (KICKR): 3600 measurements, its targets set again 1 time.")
        let machine = try #require(SensorReport.object(of: status)["fitness_machine"] as? [String: Any])
        #expect(machine["type"] as? String == "indoor bike" && machine["control"] as? String == "granted" && machine["targets_restored"] as? Int == 1)
    }
}
