#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DBus
import GPSCore
import LocationCore
import Logging
import WorkoutCore

/// A Bluetooth LE workout sensor read through BlueZ, as a `SampleSource` of a
/// `WorkoutSession`: a heart-rate strap (heart rate, and the times between beats), a speed and
/// cadence sensor (wheel speed and distance, cadence), a power meter (power, cadence, speed), a
/// foot pod (speed, cadence, distance; its stride length in ``status``), or a treadmill or a smart
/// trainer (speed, cadence, power, heart rate, distance), which ``fitnessMachine`` drives while it
/// records. A total distance becomes `.distance` samples of the metres since the last notification;
/// a device that measures a type twice gives one series of it (see the BluetoothSensors article).
///
/// ```swift
/// let strap = BluetoothSensor(address: "C0:FF:EE:00:00:01")
/// let session = WorkoutSession(store: store, source: gps, samples: [strap], configuration: .init(activityType: .cycling))
/// ```
///
/// Started, it finds the device (scanning for it if BlueZ does not know it yet), connects,
/// waits for BlueZ to resolve its services, subscribes to every measurement it has, and reads its
/// battery and, for a strap, where it is worn. A device that disconnects (out of range, asleep,
/// its battery empty) is connected again with backoff, and the gap is counted in ``status``.
/// A notification that is not what its specification says is dropped and counted, by reason.
///
/// Every sensor of a program (and `BlueZ`, and GeoClue's sources) goes through the process's one
/// connection to the bus (`DBusConnection.shared(_:)`): one socket and one thread, whatever the
/// number of sensors. A notification is read there, straight from the message (its bytes in one
/// copy), and its samples handed to the session.
///
/// Samples are dated when they arrive, by `now` (the system clock by default): a machine without
/// a real-time clock (a Raspberry Pi) must have its time set (NTP, or from the GPS) before a
/// workout, as its fixes are dated by the GPS. The bus is read at most every 20 ms while a sensor
/// is connected (``Configuration/readInterval``): a sensor that sends faster than that (a power meter at 50 Hz or more) has its
/// notifications read, dated and handed to the session together, up to 20 ms after they came.
public final class BluetoothSensor: SampleSource {
    /// Where the sensor is, and how it is read.
    public struct Configuration: Sendable, Hashable {
        /// The device's Bluetooth address, `C0:FF:EE:00:00:01`.
        public var address: String
        /// The bus BlueZ is on: the system bus by default.
        public var bus: DBusConnection.Address
        /// The wheel's circumference in metres, for speed and distance from wheel revolutions:
        /// 2.105 m by default, a 700×25c road tyre (2.096 for 700×23c, 2.136 for 700×28c, about
        /// 2.29 for a 29-inch mountain-bike tyre).
        public var wheelCircumference: Double
        /// How long a connection (or a search for the device) may take before it counts as failed.
        public var connectTimeout: Duration
        /// The wait before the first reconnect; it doubles with each failure.
        public var reconnectDelay: Duration
        /// The longest wait between reconnects.
        public var maximumReconnectDelay: Duration
        /// How long a fitness machine may take to answer a control request (``FitnessMachineControl``).
        public var controlTimeout: Duration
        /// How often the bus is read at most while the sensor is connected (20 ms by default): a
        /// notification waits at most this long to be read and dated, and those of one read are
        /// handed over together. Shorter costs more CPU for a fast sensor (a power meter at 50 Hz
        /// woke the connection's thread every notification); a test that moves a virtual clock a
        /// second at a time and waits for each second's notifications sets 1 ms.
        public var readInterval: Duration

        /// A configuration for the device at `address` on `bus`.
        public init(
            address: String, bus: DBusConnection.Address = .system, wheelCircumference: Double = 2.105,
            connectTimeout: Duration = .seconds(20), reconnectDelay: Duration = .seconds(1), maximumReconnectDelay: Duration = .seconds(30),
            controlTimeout: Duration = .seconds(5), readInterval: Duration = .milliseconds(20)
        ) {
            self.address = address.uppercased()
            self.bus = bus
            self.wheelCircumference = wheelCircumference
            self.connectTimeout = connectTimeout
            self.reconnectDelay = reconnectDelay
            self.maximumReconnectDelay = maximumReconnectDelay
            self.controlTimeout = controlTimeout
            self.readInterval = readInterval
        }
    }

    /// How it is read.
    public var configuration: Configuration { runner.configuration }
    private let runner: SensorRunner

    /// The control of a smart trainer or a treadmill (its Fitness Machine Control Point): targets
    /// set while the sensor records, set again when a dropped connection comes back.
    public let fitnessMachine: FitnessMachineControl

    /// A sensor at `address` on `bus`; its backoff and timeouts timed on `clock`, its samples dated
    /// by `now` (called on the bus connection's thread as each measurement is read: it must be
    /// quick, as `FixTime.now` is). Nothing happens until ``start()``.
    public convenience init(
        address: String, bus: DBusConnection.Address = .system, wheelCircumference: Double = 2.105,
        clock: some Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "BluetoothSensors.BluetoothSensor")
    ) {
        self.init(
            configuration: Configuration(address: address, bus: bus, wheelCircumference: wheelCircumference), clock: clock, now: now,
            logger: logger)
    }

    /// A sensor read as `configuration` says.
    public init(
        configuration: Configuration, clock: some Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "BluetoothSensors.BluetoothSensor")
    ) {
        var logger = logger
        logger[metadataKey: "bluetooth.address"] = "\(configuration.address)"
        runner = SensorRunner(configuration: configuration, clock: ElapsedClock(clock), now: now, logger: logger)
        fitnessMachine = FitnessMachineControl(runner: runner)
    }

    deinit {
        runner.stop()
    }

    /// Connects and reads the sensor, in a task of its own: its samples, until ``stop()`` ends
    /// the stream. Calling it again while started returns a stream that ends at once.
    public func start() -> AsyncStream<QuantitySample> {
        runner.start()
    }

    /// Connects and reads the sensor, in a task of its own, handing each sample to `deliver` as
    /// it is read: on the bus connection's thread (the one the process's sensors share), one at a
    /// time, in the order measured, until ``stop()``. A session takes each in its place among the
    /// fixes at once, where one read from ``start()``'s stream waits for the session's reading task.
    /// `deliver` must be quick and must not wait: the bus's other messages wait for it. Returns
    /// `true`; `false` while started already (the run goes on as it was, and `deliver` gets nothing).
    public func start(delivering deliver: @escaping @Sendable (QuantitySample) -> Void) -> Bool {
        runner.start(delivering: deliver)
    }

    /// Stops reading: notifications off, disconnected (within a couple of seconds), the stream
    /// ended. A device that another program had connected when the sensor came is left connected.
    public func stop() {
        fitnessMachine.controlTakenBack()
        runner.stop()
    }

    /// Where the sensor stands: connected or not, its battery, what was dropped, the gaps.
    public var status: BluetoothSensorStatus {
        runner.status
    }

    /// The sensor's status each time its connection, battery, services or dropped notifications
    /// change (a slow reader gets the latest). A measurement read changes only ``BluetoothSensorStatus/notifications``
    /// and ``BluetoothSensorStatus/latest``, which ``status`` gives when asked: it sends no update.
    public func statusUpdates() -> AsyncStream<BluetoothSensorStatus> {
        runner.statusUpdates()
    }

    /// Returns once `condition` holds for the status (at once if it does now), woken by the change
    /// itself, including those ``statusUpdates()`` sends no update for (a measurement read): for tests.
    package func waitUntil(_ condition: @escaping @Sendable (BluetoothSensorStatus) -> Bool) async {
        await runner.waitUntil(condition)
    }

    /// Returns once the last run has ended (after ``stop()``) and the sensor is disconnected:
    /// for tests.
    package func waitUntilIdle() async {
        await runner.waitUntilIdle()
    }
}
