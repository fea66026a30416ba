#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GPSCore
import Logging

/// A client of gpsd over libgps, in the style of `CLLocationManager`: start it, and a delegate
/// (and any observers) hear of each fix, satellite report, device change, connection change and error.
///
/// ```swift
/// let client = GPSDClient(host: "127.0.0.1", port: 2947)
/// client.delegate = myDelegate
/// client.start()            // returns at once; connecting happens on the client's reader thread
/// // ...
/// client.stop()
/// ```
///
/// The client reads on its own thread and never blocks its caller. Connecting has its own timeout
/// (libgps's TCP connect has none). When gpsd goes away it reconnects with exponential backoff,
/// telling the delegate each step, until ``stop()``.
///
/// It conforms to `LocationSource`, so a `LocationManager` can drive it.
public final class GPSDClient: LocationSource {
    /// How the client connects and reconnects.
    public struct Configuration: Sendable, Hashable {
        /// How long one TCP connect may take before it counts as failed.
        public var connectTimeout: Duration
        /// The wait before the first reconnect attempt; it doubles with each failure.
        public var reconnectDelay: Duration
        /// The longest wait between reconnect attempts.
        public var maximumReconnectDelay: Duration
        /// How long a connected peer may stay silent before the client says so: gpsd sends its
        /// VERSION banner as soon as a client connects, so a peer that sends nothing is not a
        /// working gpsd.
        public var silenceLimit: Duration
        /// Whether gpsd's clock keeps true time, which dates the fix gpsd holds (its answer to
        /// `?POLL;`): ``HostClock/automatic`` by default, which asks this machine's kernel for a
        /// gpsd on this machine and trusts no other.
        public var hostClock: HostClock

        public init(
            connectTimeout: Duration = .seconds(5),
            reconnectDelay: Duration = .milliseconds(250),
            maximumReconnectDelay: Duration = .seconds(8),
            silenceLimit: Duration = .seconds(5),
            hostClock: HostClock = .automatic
        ) {
            self.connectTimeout = connectTimeout
            self.reconnectDelay = reconnectDelay
            self.maximumReconnectDelay = maximumReconnectDelay
            self.silenceLimit = silenceLimit
            self.hostClock = hostClock
        }

        /// The wait before reconnect attempt `attempt` (1, 2, 3...).
        func delay(beforeAttempt attempt: Int) -> Duration {
            var delay = reconnectDelay
            var step = 1
            while step < attempt && delay < maximumReconnectDelay {
                delay = delay * 2
                step += 1
            }
            return min(delay, maximumReconnectDelay)
        }
    }

    /// The gpsd host name or address.
    public let host: String
    /// gpsd's TCP port.
    public let port: UInt16
    /// The one device to watch, or `nil` for all of them.
    public let device: String?
    /// Timeouts and backoff.
    public let configuration: Configuration

    let logger: Logger
    let clock: ElapsedClock
    private let observers = LocationObservers()
    private let state: Locked<ClientState>

    private struct ClientState {
        var generation: UInt64 = 0
        var reader: GPSDReader?
        var delegate = WeakDelegate()
        var connection: ConnectionState = .stopped
        var devices: [GPSDevice] = []
        var serverVersion: String?
    }

    private struct WeakDelegate {
        weak var value: (any GPSDClientDelegate)?
    }

    /// Creates a client for gpsd at `host`:`port`, watching `device` (all devices when `nil`).
    /// Nothing happens until ``start()``.
    ///
    /// The connect timeout and the waits between reconnects are timed on `clock`: tests pass a test
    /// clock and step it past each deadline instead of waiting in real time.
    public init(
        host: String = "localhost",
        port: UInt16 = 2947,
        device: String? = nil,
        configuration: Configuration = Configuration(),
        clock: some Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "LocationFacade.GPSDClient")
    ) {
        self.clock = ElapsedClock(clock)
        self.host = host
        self.port = port
        self.device = device
        self.configuration = configuration
        var logger = logger
        logger[metadataKey: "gpsd.host"] = "\(host)"
        logger[metadataKey: "gpsd.port"] = "\(port)"
        self.logger = logger
        self.state = Locked(ClientState())
    }

    deinit {
        state.withLock { $0.reader }?.requestStop()
    }

    /// Receives the client's callbacks. Held weakly, as CoreLocation holds its delegate.
    public var delegate: (any GPSDClientDelegate)? {
        get { state.withLock { $0.delegate.value } }
        set { state.withLock { $0.delegate.value = newValue } }
    }

    /// Where the connection stands now.
    public var connectionState: ConnectionState {
        state.withLock { $0.connection }
    }

    /// The receivers gpsd reported most recently.
    public var devices: [GPSDevice] {
        state.withLock { $0.devices }
    }

    /// gpsd's release, from the VERSION banner of the current connection.
    public var serverVersion: String? {
        state.withLock { $0.serverVersion }
    }

    /// Connects to gpsd and starts watching, on the client's reader thread. Returns at once.
    /// Calling it while started does nothing.
    public func start() {
        let reader: GPSDReader? = state.withLock { state in
            guard state.reader == nil else { return nil }
            state.generation += 1
            let reader = GPSDReader(client: self, generation: state.generation)
            state.reader = reader
            return reader
        }
        reader?.launch()
    }

    /// Stops watching, disconnects and stops reconnecting. Returns at once; the delegate then hears
    /// `ConnectionState.stopped`. At most an event already being delivered still arrives after it.
    public func stop() {
        let reader: GPSDReader? = state.withLock { state in
            defer {
                state.reader = nil
                state.generation += 1
            }
            return state.reader
        }
        guard let reader else { return }
        reader.requestStop()
        deliver(.connectionChanged(.stopped), generation: nil)
    }

    /// Asks gpsd for its latest fix at once (`?POLL;`). The answer arrives as
    /// ``GPSDClientDelegate/gpsdClient(_:didReceiveLatestFix:)`` and `LocationEvent.cachedLocation(_:age:)`;
    /// there is none when gpsd has no active receiver with a fix. Asked before the connection is up,
    /// the request is sent as soon as it is.
    ///
    /// The fix's age is gpsd's clock at the answer less the fix's GPS time, when gpsd's clock is
    /// trusted (``Configuration/hostClock``), and `nil` otherwise; its `receivedAt` is the moment
    /// the answer was read less that age (or, when the age is unknown, the fix's own GPS time).
    public func requestLatestFix() {
        state.withLock { $0.reader }?.requestPoll()
    }

    public func addObserver(_ handler: @escaping @Sendable (LocationEvent) -> Void) -> LocationObservation {
        observers.add(handler)
    }

    /// `true`: gpsd reports an epoch after each of a receiver's sentences until it has learnt
    /// which one ends the epoch (when it has just opened the receiver, and for receivers whose
    /// epochs it cannot learn), so a `LocationManager` one-shot waits for the rest of an epoch.
    public var reportsEpochsInParts: Bool { true }

    /// Called by the reader thread of `generation` (or by `stop()` with `nil`) for each event.
    func deliver(_ event: LocationEvent, generation: UInt64?) {
        let delegate: (any GPSDClientDelegate)?? = state.withLock { state in
            if let generation, generation != state.generation { return .none }
            switch event {
            case let .connectionChanged(connection):
                state.connection = connection
                if connection == .connected { state.serverVersion = nil }
            case let .devices(devices):
                state.devices = devices
            default:
                break
            }
            return .some(state.delegate.value)
        }
        guard case let .some(delegate) = delegate else { return }
        if let delegate {
            switch event {
            case let .location(location): delegate.gpsdClient(self, didUpdateLocation: location)
            case let .cachedLocation(location, _): delegate.gpsdClient(self, didReceiveLatestFix: location)
            case let .noFix(device, time): delegate.gpsdClient(self, didReportNoFixFrom: device, at: time)
            case let .satellites(report): delegate.gpsdClient(self, didUpdateSatellites: report)
            case let .devices(devices): delegate.gpsdClient(self, didChangeDevices: devices)
            case let .connectionChanged(connection): delegate.gpsdClient(self, didChangeState: connection)
            case let .error(error): delegate.gpsdClient(self, didFailWithError: error)
            }
        }
        observers.send(event)
    }

    /// Records gpsd's VERSION banner (not an event of its own).
    func recordServerVersion(_ release: String, generation: UInt64) {
        state.withLock { state in
            if state.generation == generation { state.serverVersion = release }
        }
    }

    /// Lets `reader` go once its thread ends, unless a newer reader replaced it.
    func readerFinished(generation: UInt64) {
        state.withLock { state in
            if state.generation == generation { state.reader = nil }
        }
    }
}
