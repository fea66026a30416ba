// The only Swift file that touches libgps's C API. Everything outside sees GPSDMessage and Swift types.
//
// libgps opens the connection (gps_open), sends the requests (gps_stream, gps_send), closes it
// (gps_close), and parses every report (gps_unpack). We read the socket ourselves instead of
// calling gps_read: gps_read returns one report per call, copies it twice and memmoves its 8 KB
// buffer after each one (a fifth of a bare C client's time in profiles), cannot tell EOF from a
// full buffer (both are -1 with errno 0), and blocks in recv() when a half line is buffered and
// gps_waiting() says there is data. Reading ourselves, a split line simply waits in our buffer for
// its newline, several reports per read are taken in turn, and EOF is recv() returning 0.
//
// libgps's other traps, and where they are handled:
// - gps_data_t is about 24 KB: allocated on the heap (clibgps_alloc).
// - `set` bits are ORed across reports: cleared before every parse, and we decide by the line's
//   class, acting on fix fields only for TPV.
// - absent numbers are NaN: every Double goes through `finite(_:)`.
// - a mode 0/1 TPV leaves no usable position: positions are taken only from TPVs with mode >= 2
//   and finite latitude/longitude; a lost fix becomes `.noFix`.
// - the parser is lenient and reports no errors: a truncated or garbage line is caught by
//   GPSDLine.scan before libgps sees it.
// - libgps has no POLL parser: we cut the POLL answer's TPV objects out and gps_unpack each.
// - gps_open's TCP connect has no timeout: GPSDReader runs it on a helper thread and stops
//   waiting at its own deadline.
// - the POLL answer's `time` is gpsd's host clock, its TPVs' the receiver's: their difference is a
//   held fix's age only when the host clock keeps true time, which the kernel tells (KernelClock).

import CLibGPS
import GPSCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// An open libgps connection to gpsd.
///
/// Used by one thread at a time: the connect helper creates it and hands it to the reader thread.
final class LibGPSConnection: @unchecked Sendable {
    private let data: UnsafeMutablePointer<gps_data_t>
    private var isOpen = true
    /// Bytes received and not yet decoded: `input[start..<end]`.
    private var input: [UInt8]
    private var start = 0
    private var end = 0

    /// The longest line accepted; gpsd's longest reports (POLL, SKY with many satellites) are
    /// about 10 KB.
    static let maximumLineLength = 64 * 1024

    /// The socket, for poll(2).
    let fileDescriptor: Int32

    private init(data: UnsafeMutablePointer<gps_data_t>) {
        self.data = data
        self.fileDescriptor = clibgps_fd(data)
        self.input = [UInt8](repeating: 0, count: Self.maximumLineLength + 1)
        let flags = fcntl(fileDescriptor, F_GETFL)
        _ = fcntl(fileDescriptor, F_SETFL, flags | O_NONBLOCK)
    }

    /// Connects to gpsd at `host`:`port`. Blocks for as long as the TCP connect takes, which
    /// libgps does not bound. The corresponding C function is `gps_open(3)`.
    static func open(host: String, port: UInt16) -> Result<LibGPSConnection, LocationError> {
        guard let data = clibgps_alloc() else {
            return .failure(.unreachable(host: host, port: port, reason: "out of memory"))
        }
        errno = 0
        if gps_open(host, String(port), data) != 0 {
            let code = errno
            free(data)
            return .failure(.unreachable(host: host, port: port, reason: reason(forOpenError: code)))
        }
        return .success(LibGPSConnection(data: data))
    }

    /// libgps reports netlib's codes, not the connect's errno; say what each means.
    private static func reason(forOpenError code: Int32) -> String {
        switch code {
        case NL_NOCONNECT: "the TCP connection was refused or failed"
        case NL_NOHOST: "the host name does not resolve"
        case NL_NOSERVICE: "the port is not a valid service"
        default: String(cString: gps_errstr(code))
        }
    }

    /// Asks gpsd to stream JSON reports, of `device` only when given.
    /// The corresponding C function is `gps_stream(3)`.
    func watch(device: String?) -> Bool {
        let status: Int32 = Threads.withoutPipeSignal {
            if let device {
                device.withCString { clibgps_watch(data, $0) }
            } else {
                clibgps_watch(data, nil)
            }
        }
        return status == 0
    }

    /// Asks gpsd to stop streaming. The corresponding C function is `gps_stream(3)`.
    func unwatch() {
        _ = Threads.withoutPipeSignal { clibgps_unwatch(data) }
    }

    /// Sends one command such as `?POLL;`. The corresponding C function is `gps_send(3)`.
    func send(_ command: String) -> Bool {
        Threads.withoutPipeSignal { command.withCString { clibgps_send(data, $0) } } == 0
    }

    /// What one read produced.
    enum ReadOutcome {
        /// A decoded line; `excerpt` is the start of the line when it was malformed.
        case message(GPSDMessage, excerpt: String?)
        case wouldBlock
        case closed(reason: String, malformed: String?)
    }

    /// Decodes the next complete line, reading from the socket (without blocking) when none is buffered.
    /// The corresponding C functions are `recv(2)` and `gps_unpack(3)`.
    func read(receivedAt: Date) -> ReadOutcome {
        while true {
            let found = input.withUnsafeMutableBytes { bytes -> ReadOutcome? in
                guard let newline = memchr(bytes.baseAddress! + start, 0x0A, end - start) else { return nil }
                let newlineIndex = newline - UnsafeMutableRawPointer(bytes.baseAddress!)
                var lineEnd = newlineIndex
                if lineEnd > start && bytes[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }  // gpsd ends lines with CRLF
                bytes[lineEnd] = 0
                let line = UnsafeMutableBufferPointer(
                    start: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + start, count: lineEnd - start)
                start = newlineIndex + 1
                let decoded = LibGPSDecoder.decode(line: line, into: data, receivedAt: receivedAt)
                if case .malformed = decoded {
                    return .message(decoded, excerpt: GPSDLine.excerpt(UnsafeBufferPointer(line)))
                }
                return .message(decoded, excerpt: nil)
            }
            if let found { return found }

            if start > 0 {
                input.withUnsafeMutableBytes { bytes in
                    _ = memmove(bytes.baseAddress!, bytes.baseAddress! + start, end - start)
                }
                end -= start
                start = 0
            }
            guard end < Self.maximumLineLength else {
                return .closed(
                    reason: "it sent a line too long to read",
                    malformed: "a line longer than \(Self.maximumLineLength) bytes without a newline")
            }
            let count = input.withUnsafeMutableBytes { bytes in
                recv(fileDescriptor, bytes.baseAddress! + end, Self.maximumLineLength - end, 0)
            }
            if count > 0 {
                end += count
            } else if count == 0 {
                return .closed(reason: "gpsd closed the connection", malformed: nil)
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return .wouldBlock
            } else if errno != EINTR {
                return .closed(reason: String(cString: strerror(errno)), malformed: nil)
            }
        }
    }

    /// Closes the socket and frees libgps's state. The corresponding C function is `gps_close(3)`.
    func close() {
        guard isOpen else { return }
        isOpen = false
        _ = gps_close(data)
        free(data)
    }

    deinit {
        close()
    }
}

/// Decodes gpsd JSON lines with libgps's own parser (`gps_unpack`) and maps the result into Swift.
///
/// Tests use it to check the mapping on lines they write; `LibGPSConnection` uses it on what
/// `gps_read` has already parsed.
final class LibGPSDecoder {
    private let data: UnsafeMutablePointer<gps_data_t>

    init() {
        data = clibgps_alloc()!
    }

    deinit {
        free(data)
    }

    /// Decodes one line as gpsd would send it. The corresponding C function is `gps_unpack(3)`.
    func decode(_ line: String, receivedAt: Date = Date(timeIntervalSince1970: 0)) -> GPSDMessage {
        var bytes = Array(line.utf8)
        bytes.append(0)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            Self.decode(line: UnsafeMutableBufferPointer(rebasing: buffer.dropLast()), into: data, receivedAt: receivedAt)
        }
    }

    /// Checks `line` (which must be followed by a NUL byte), has libgps parse it into `data` when
    /// its class is one we use, and maps the result.
    static func decode(
        line: UnsafeMutableBufferPointer<UInt8>, into data: UnsafeMutablePointer<gps_data_t>, receivedAt: Date
    ) -> GPSDMessage {
        let bytes = UnsafeBufferPointer(line)
        let firstSpace: Int?
        switch GPSDLine.scan(bytes) {
        case let .malformed(problem):
            return .malformed(reason: problem)
        case let .object(space):
            firstSpace = space
        }
        guard let className = GPSDLine.className(bytes) else {
            return .malformed(reason: "a JSON object without a \"class\"")
        }
        switch className {
        case "TPV", "SKY", "DEVICES", "DEVICE", "VERSION", "WATCH", "ERROR":
            // libgps reads gpsd's compact JSON: white space between tokens (a hand-written or
            // pretty-printed report) makes it stop early and keep the last report's values.
            // gpsd's own lines have none, and are handed over as they are.
            if let firstSpace {
                let length = JSONScan.compact(line, from: firstSpace)
                if length < line.count { line[length] = 0 }
            }
            guard unpack(line.baseAddress!, into: data) == 0 else {
                return .malformed(reason: "libgps could not read this \(className) report")
            }
        default:
            break
        }
        switch className {
        case "TPV":
            return tpv(data, receivedAt: receivedAt)
        case "SKY":
            return .sky(sky(data, hasSatellites: GPSDLine.hasMember("satellites", in: bytes)))
        case "DEVICES":
            let count = Int(data.pointee.devices.ndevices)
            return .devices((0..<max(0, min(count, Int(clibgps_max_devices())))).map { device(clibgps_device(data, Int32($0))) })
        case "DEVICE":
            return withUnsafePointer(to: &data.pointee.dev) { .device(device($0)) }
        case "VERSION":
            return .version(release: withUnsafeBytes(of: &data.pointee.version.release) { string($0) })
        case "WATCH":
            return .watch(enabled: data.pointee.policy.watcher)
        case "POLL":
            return .poll(fixes: pollFixes(bytes, data: data, receivedAt: receivedAt), time: pollTime(bytes))
        case "ERROR":
            return .error(message: withUnsafeBytes(of: &data.pointee.error) { string($0) })
        default:
            return .ignored(className: String(className))
        }
    }

    /// Parses one NUL-terminated report into `data`, with its `set` bits cleared first.
    /// libgps's status: 0 when it read the report.
    @discardableResult
    private static func unpack(_ text: UnsafeMutablePointer<UInt8>, into data: UnsafeMutablePointer<gps_data_t>) -> Int32 {
        clibgps_clear_set(data)
        return gps_unpack(UnsafeMutableRawPointer(text).assumingMemoryBound(to: CChar.self), data)
    }

    private static func tpv(_ data: UnsafeMutablePointer<gps_data_t>, receivedAt: Date) -> GPSDMessage {
        let device = withUnsafeBytes(of: &data.pointee.dev.path) { string($0) }
        let deviceOrNil = device.isEmpty ? nil : device
        let fix = data.pointee.fix
        let time = finite(clibgps_seconds(fix.time)).map { Date(timeIntervalSince1970: $0) }
        let mode = FixMode(gpsdMode: Int(fix.mode))
        guard mode >= .fix2D, let latitude = finite(fix.latitude), let longitude = finite(fix.longitude) else {
            return .noFix(device: deviceOrNil, time: time)
        }
        // libgps takes any number: a position off the Earth is damaged data, not a fix.
        guard Geodesy.isValid(latitude: latitude, longitude: longitude) else {
            return .malformed(reason: "a position out of range (latitude \(latitude), longitude \(longitude))")
        }
        let is3D = mode == .fix3D
        let status = FixStatus(gpsdStatus: Int(fix.status))
        return .fix(Location(
            latitude: latitude,
            longitude: longitude,
            altitude: is3D ? meanSeaLevelAltitude(fix) : nil,
            ellipsoidalAltitude: is3D ? finite(fix.altHAE) : nil,
            horizontalAccuracy: finite(fix.eph) ?? finite(fix.epx).flatMap { x in finite(fix.epy).map { y in (x * x + y * y).squareRoot() } },
            verticalAccuracy: is3D ? finite(fix.epv) : nil,
            speed: finite(fix.speed),
            speedAccuracy: finite(fix.eps),
            course: finite(fix.track),
            courseAccuracy: finite(fix.epd),
            climb: is3D ? finite(fix.climb) : nil,
            time: time,
            receivedAt: receivedAt,
            mode: mode,
            status: status,
            device: deviceOrNil,
            isSimulated: status == .simulated
        ))
    }

    /// Altitude above mean sea level: `altMSL`; else `altHAE - geoidSep`; else the deprecated `alt`,
    /// which gpsd before 3.20 sent as MSL, unless `altHAE` is present (3.22 copies `altHAE` into it).
    private static func meanSeaLevelAltitude(_ fix: gps_fix_t) -> Double? {
        if let msl = finite(fix.altMSL) { return msl }
        if let hae = finite(fix.altHAE) {
            return finite(fix.geoid_sep).map { hae - $0 }
        }
        return finite(fix.altitude)
    }

    private static func sky(_ data: UnsafeMutablePointer<gps_data_t>, hasSatellites: Bool) -> SatelliteReport {
        let device = withUnsafeBytes(of: &data.pointee.dev.path) { string($0) }
        let dop = data.pointee.dop
        var satellites: [Satellite] = []
        if hasSatellites {
            for index in 0..<Int(clibgps_max_channels()) {
                let satellite = clibgps_satellite(data, Int32(index))!.pointee
                guard satellite.PRN > 0 else { continue }
                satellites.append(Satellite(
                    prn: Int(satellite.PRN),
                    elevation: finite(satellite.elevation),
                    azimuth: finite(satellite.azimuth),
                    signalStrength: finite(satellite.ss).flatMap { $0 >= 0 ? $0 : nil },
                    used: satellite.used))
            }
        }
        return SatelliteReport(
            device: device.isEmpty ? nil : device,
            time: finite(clibgps_seconds(data.pointee.skyview_time)).map { Date(timeIntervalSince1970: $0) },
            visibleCount: hasSatellites ? Int(data.pointee.satellites_visible) : nil,
            usedCount: hasSatellites ? Int(data.pointee.satellites_used) : nil,
            hdop: finite(dop.hdop), vdop: finite(dop.vdop), pdop: finite(dop.pdop),
            tdop: finite(dop.tdop), gdop: finite(dop.gdop),
            satellites: satellites)
    }

    private static func device(_ config: UnsafePointer<devconfig_t>) -> GPSDevice {
        var copy = config.pointee
        let path = withUnsafeBytes(of: &copy.path) { string($0) }
        let driver = withUnsafeBytes(of: &copy.driver) { string($0) }
        let activated = finite(clibgps_seconds(copy.activated)).map { Date(timeIntervalSince1970: $0) }
        return GPSDevice(
            path: path,
            driver: driver.isEmpty ? nil : driver,
            activated: activated,
            baudRate: copy.baudrate > 0 ? Int(copy.baudrate) : nil)
    }

    private static func pollFixes(
        _ line: UnsafeBufferPointer<UInt8>, data: UnsafeMutablePointer<gps_data_t>, receivedAt: Date
    ) -> [Location] {
        var fixes: [Location] = []
        for range in GPSDLine.objectsInArray(named: "tpv", of: line) {
            var object = Array(line[range])
            object.append(0)
            let status = object.withUnsafeMutableBufferPointer { buffer in
                buffer[JSONScan.compact(UnsafeMutableBufferPointer(rebasing: buffer.dropLast()))] = 0
                return unpack(buffer.baseAddress!, into: data)
            }
            if status == 0, case let .fix(location) = tpv(data, receivedAt: receivedAt) {
                fixes.append(location)
            }
        }
        return fixes
    }

    /// The POLL answer's own `time`: the member before its `tpv` array (those inside are the fixes').
    private static func pollTime(_ line: UnsafeBufferPointer<UInt8>) -> Date? {
        let head = UnsafeBufferPointer(rebasing: line[..<(JSONScan.valueStart(ofMember: "tpv", in: line) ?? line.count)])
        guard let range = JSONScan.stringMember(named: "time", in: head) else { return nil }
        return RFC3339.parse(utf8: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(head)[range]))?.date
    }

    private static func finite(_ value: Double) -> Double? {
        value.isFinite ? value : nil
    }

    /// A NUL-terminated C string stored in a fixed-size char array.
    private static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let length = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<length]), as: UTF8.self)
    }
}

/// What this machine's kernel says of its clock: whether an NTP daemon keeps it to true time.
package enum KernelClock {
    /// `true` when the kernel says the clock is synchronized, `false` when it says it is not
    /// (`TIME_ERROR`, `STA_UNSYNC`), `nil` when it cannot be asked. The corresponding C function
    /// is `adjtimex(2)`.
    package static func isSynchronized() -> Bool? {
        switch clibgps_kernel_clock_synchronized() {
        case 1: true
        case 0: false
        default: nil
        }
    }
}
