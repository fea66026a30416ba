import Foundation

/// Names the process that stages a route, so that a store opened later can tell staging left by
/// a process that died (kill -9, power cut) from staging of a process still at work on the same
/// file.
///
/// The name is `pid:start`, where `start` is the process's start time in clock ticks since boot
/// (field 22 of `/proc/PID/stat`): a pid reused by a later process does not match it. Where
/// `/proc` cannot be read, `start` is 0 and only the pid is checked.
package struct StagingOwner: Sendable, Hashable, CustomStringConvertible {
    package var pid: Int32
    package var start: UInt64

    package init(pid: Int32, start: UInt64) {
        self.pid = pid
        self.start = start
    }

    /// This process.
    package static let current = StagingOwner(pid: getpid(), start: startTime(of: getpid()) ?? 0)

    /// Parses `pid:start`; `nil` for anything else.
    package init?(_ text: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let pid = Int32(parts[0]), let start = UInt64(parts[1]) else { return nil }
        self.init(pid: pid, start: start)
    }

    package var description: String {
        "\(pid):\(start)"
    }

    /// Whether the process this names is still running. The current process always is.
    package var isAlive: Bool {
        if self == Self.current { return true }
        if start != 0, Self.startTime(of: getpid()) != nil {
            return Self.startTime(of: pid) == start
        }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// Field 22 (`starttime`) of `/proc/PID/stat`, or `nil` when there is no such process or no `/proc`.
    /// The file reads `pid (comm) state ppid ...`; `comm` may hold spaces and parentheses, so the
    /// fields are counted from the last `)`.
    static func startTime(of pid: Int32) -> UInt64? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
              let text = String(data: data, encoding: .utf8),
              let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state), so field 22 is fields[19].
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }
}
