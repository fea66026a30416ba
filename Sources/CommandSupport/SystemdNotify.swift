#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// systemd's notification protocol (sd_notify(3)) for a service of `Type=notify`: one datagram
/// of `KEY=VALUE` lines to the socket `$NOTIFY_SOCKET` names. Written here in a few lines, so that
/// a command links no libsystemd for it; without `$NOTIFY_SOCKET` (not run by systemd) nothing
/// is sent.
///
/// ```swift
/// SystemdNotify.send("READY=1")
/// let watchdog = SystemdNotify.watchdogInterval()   // nil unless the unit sets WatchdogSec=
/// ```
package enum SystemdNotify {
    /// Sends `state` (`READY=1`, `WATCHDOG=1`, `STOPPING=1`, `STATUS=...`); returns whether it was
    /// sent. A path starting with `@` is in the abstract namespace, as sd_notify reads it.
    @discardableResult
    package static func send(_ state: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
            sunPath.copyBytes(from: bytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                message.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), socketAddress, length) }
            }
        }
        return sent == message.count
    }

    /// Half of `$WATCHDOG_USEC` (sd_watchdog_enabled(3) advises pinging at half the limit), when
    /// systemd watches this process (`WatchdogSec=` in the unit); `nil` otherwise.
    package static func watchdogInterval(environment: [String: String] = ProcessInfo.processInfo.environment) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 else { return nil }
        if let pid = environment["WATCHDOG_PID"].flatMap(Int32.init), pid != getpid() { return nil }
        return .microseconds(microseconds / 2)
    }
}
