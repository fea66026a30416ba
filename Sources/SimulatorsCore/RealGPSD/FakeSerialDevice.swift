#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import LocationCore

/// A fake GPS receiver on a pseudo-terminal: real `gpsd` opens ``path`` (`/dev/pts/N`) as it would
/// a USB receiver's `/dev/ttyUSB0`, and reads the NMEA 0183 sentences this device writes.
///
/// ```swift
/// let device = try FakeSerialDevice()
/// let gpsd = try await PrivateGPSD(devices: [device.path])
/// // ...connect a client to 127.0.0.1:gpsd.port and wait until it watches...
/// try await device.play(NMEALog(fixes: SyntheticTrack.generate(count: 60)), speed: 10)
/// ```
///
/// The terminal is in raw mode from the start (no echo, no line editing), and this object keeps
/// the terminal's far end open too, so gpsd can close and reopen it as it does when it hunts for
/// the receiver's speed. Sentences that gpsd does not read in time are dropped, as a serial line
/// drops them, rather than blocking the writer.
public final class FakeSerialDevice: Sendable {
    /// The terminal gpsd should open.
    public let path: String
    private let master: Int32
    private let slave: Int32

    /// Why the terminal could not be made.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Opens a new pseudo-terminal, readable and writable by anyone (gpsd may run as another user).
    public init() throws {
        // posix_openpt(3), grantpt(3), unlockpt(3) and ptsname(3) by hand: Glibc's module hides
        // them, and on Linux they are /dev/ptmx and two ioctls.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw Failure(description: "cannot open /dev/ptmx: \(String(cString: strerror(errno)))") }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(master, Self.setLock, &unlock) == 0, ioctl(master, Self.getNumber, &number) == 0 else {
            let reason = String(cString: strerror(errno))
            close(master)
            throw Failure(description: "cannot unlock the pseudo-terminal: \(reason)")
        }
        let path = "/dev/pts/\(number)"
        let slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else {
            let reason = String(cString: strerror(errno))
            close(master)
            throw Failure(description: "cannot open \(path): \(reason)")
        }
        var settings = termios()
        tcgetattr(slave, &settings)
        cfmakeraw(&settings)
        tcsetattr(slave, TCSANOW, &settings)
        chmod(path, 0o666)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        self.master = master
        self.slave = slave
        self.path = path
    }

    /// TIOCSPTLCK and TIOCGPTN from <asm-generic/ioctls.h> (macros Swift cannot import).
    private static let setLock: UInt = 0x4004_5431
    private static let getNumber: UInt = 0x8004_5430

    deinit {
        close(master)
        close(slave)
    }

    /// Writes `sentences` (each ending in CR LF) at once. Returns how many bytes the terminal took.
    @discardableResult
    public func write(_ sentences: [String]) -> Int {
        let bytes = Array(sentences.joined().utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
            if result > 0 {
                written += result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                break  // full (nobody reading) or gone: dropped, as on a serial line
            }
        }
        // Throw away anything gpsd wrote to the receiver (probes, configuration), so it never
        // fills the terminal's other direction.
        var sink = [UInt8](repeating: 0, count: 4096)
        while read(master, &sink, sink.count) > 0 {}
        return written
    }
}

extension FakeSerialDevice: NMEAOutput {}
