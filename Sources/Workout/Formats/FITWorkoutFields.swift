import FIT
import Foundation

/// The FIT developer fields of this package's own FIT files: the ``WorkoutEnvelope`` (the
/// workout's id, start and end to the millisecond, whether auto-pause decided its stops, how its
/// distance was counted and whether indoors, its events exactly), where its route segments begin, and when the beats of each `hrv` message
/// were, so that importing the file gives back the workout it was exported from.
///
/// They belong to the developer data index 0, whose `developer_data_id` names this package by its
/// ``applicationID``, and each is described by a `field_description` before it is used, as the
/// protocol asks, so Garmin's decoder and fitdecode show them by name:
///
/// | number | name | type | in | what |
/// |---|---|---|---|---|
/// | 0 | `workout_id` | string (37) | `session` | the workout's UUID |
/// | 1 | `timestamp_ms` | uint16, ms | `session`, `event` | milliseconds past the message's `timestamp` (the session's: its end) |
/// | 2 | `start_time_ms` | uint16, ms | `session` | milliseconds past its `start_time` |
/// | 3 | `auto_pause` | uint8 | `session` | 1 when the workout's stops were decided by auto-pause |
/// | 4 | `workout_event` | string (16) | `event` | the event's ``WorkoutEvent/Kind`` (`pause`, `motion_paused`, `lap`, `marker`...) |
/// | 5 | `marker_name` | string (64) | `event` | a marker's name |
/// | 6 | `segment` | uint16 | `record` | the route segment the record begins (only on the first record of each) |
/// | 7 | `beat_time` | uint32, s | `hrv` | the FIT time of the message's first beat (the end of its first interval) |
/// | 8 | `beat_time_ms` | uint16, ms | `hrv` | milliseconds past it |
/// | 9 | `distance_source` | string (10) | `event` (the first timer start) | the workout's ``DistanceSource`` (`gps`, `sensor`, `automatic`) |
/// | 10 | `sensor_factor` | float64 | `event` (the first timer start) | what the sensor's distance was multiplied by |
/// | 11 | `indoor` | uint8 | `event` (the first timer start) | 1 indoors, 0 outdoors (invalid: not known) |
///
/// The first timer start carries `workout_event` `start` and `timestamp_ms`: the workout's start
/// (which its first record may come after); and, when the workout's metadata says
/// (``SensorDistance``), how its distance was counted, and whether it was done indoors: there, not
/// in the session (which comes after the records), an import knows before the first record how
/// to read the records' distances. Each event of the workout is an `event` message
/// carrying `workout_event`: a pause or resume
/// that stops or starts the timer is the standard timer event (`stop_all` or `start`, with
/// `timer_trigger` `auto` for auto-pause), one that does not (a pause while auto-paused) a timer
/// `marker`; a lap is an event `lap`, a marker an event `user_marker`, both of type `marker`.
enum FITWorkoutFields {
    /// This package's application id in `developer_data_id` (a UUID's 16 bytes).
    static let applicationID: [UInt8] = Array(UUID(uuidString: "5C9F2E64-7A0B-4F4D-9C1E-2B8D3A6F0E51")!.uuidBytes)
    /// Our developer data index.
    static let developerIndex: UInt8 = 0

    /// A field: its number, name, base type, size and units.
    struct Field {
        var number: UInt8
        var name: String
        var type: FITBaseType
        var size: Int
        var units: String?

        var definition: FITDeveloperFieldDefinition {
            FITDeveloperFieldDefinition(
                number: number, size: size, developerIndex: FITWorkoutFields.developerIndex,
                description: FITDeveloperFieldDescription(
                    developerIndex: FITWorkoutFields.developerIndex, number: number, baseType: type, name: name, units: units))
        }
    }

    static let workoutID = Field(number: 0, name: "workout_id", type: .string, size: 37)
    static let timestampMilliseconds = Field(number: 1, name: "timestamp_ms", type: .uint16, size: 2, units: "ms")
    static let startTimeMilliseconds = Field(number: 2, name: "start_time_ms", type: .uint16, size: 2, units: "ms")
    static let autoPause = Field(number: 3, name: "auto_pause", type: .uint8, size: 1)
    static let workoutEvent = Field(number: 4, name: "workout_event", type: .string, size: 16)
    static let markerName = Field(number: 5, name: "marker_name", type: .string, size: 64)
    static let segment = Field(number: 6, name: "segment", type: .uint16, size: 2)
    static let beatTime = Field(number: 7, name: "beat_time", type: .uint32, size: 4, units: "s")
    static let beatTimeMilliseconds = Field(number: 8, name: "beat_time_ms", type: .uint16, size: 2, units: "ms")
    static let distanceSource = Field(number: 9, name: "distance_source", type: .string, size: 10)
    static let sensorFactor = Field(number: 10, name: "sensor_factor", type: .float64, size: 8)
    static let indoor = Field(number: 11, name: "indoor", type: .uint8, size: 1)

    /// The `workout_event` of the first timer start: the workout's start, to the millisecond.
    static let workoutStart = "start"

    static let all = [
        workoutID, timestampMilliseconds, startTimeMilliseconds, autoPause, workoutEvent, markerName, segment, beatTime,
        beatTimeMilliseconds, distanceSource, sensorFactor, indoor,
    ]

    /// `hrv` (78): its field 0, `time`, holds up to five beat-to-beat intervals (uint16, 1/1000 s).
    static let hrvMessage: UInt16 = 78
    static let hrvValues = 5

    /// `event` values (the profile's `event` enum) and `event_type` values this package writes.
    enum Event {
        static let lap: UInt8 = 9
        static let userMarker: UInt8 = 32
        static let start: UInt8 = 0
        static let stopAll: UInt8 = 4
        static let marker: UInt8 = 3
    }

    /// A time as a FIT `date_time` and the milliseconds past it; `nil` outside what FIT dates.
    static func split(_ date: Date) -> (seconds: UInt32, milliseconds: UInt16)? {
        let written = WorkoutEnvelope.written(date).timeIntervalSince1970
        guard let seconds = FITTime.value(fromSeconds: written) else { return nil }
        let milliseconds = ((written - FITTime.epoch - Double(seconds)) * 1000).rounded()
        return (seconds, UInt16(max(0, min(999, milliseconds))))
    }

    /// The time a `date_time` and its milliseconds stand for, seconds since 1970.
    static func time(_ seconds: Double, milliseconds: Double?) -> Double {
        seconds + (milliseconds.map { min(999, max(0, $0)) / 1000 } ?? 0)
    }

    /// Our developer fields' values in `message`, by field number; empty when the file's
    /// developer data index `index` is not ours (``applicationID``).
    static func values(of message: FITMessage, ourIndex index: UInt8?) -> [UInt8: FITValue] {
        guard let index, !message.definition.developerFields.isEmpty else { return [:] }
        var values: [UInt8: FITValue] = [:]
        for developer in message.developerValues where developer.field.developerIndex == index {
            if let value = developer.value { values[developer.field.number] = value }
        }
        return values
    }
}

extension UUID {
    /// The 16 bytes of the UUID, in order.
    var uuidBytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }
}
