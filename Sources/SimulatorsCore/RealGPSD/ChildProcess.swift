#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import LocationCore

/// A child process whose output is read line by line, so a test can wait for a line instead of
/// sleeping: `gpsfake`, `gpspipe`, `gpsd`, or the `locate` command itself.
package final class ChildProcess: Sendable {
    package enum Stream: Sendable { case output, error }

    private struct Waiter {
        var stream: Stream
        var predicate: @Sendable (String) -> Bool
        var continuation: CheckedContinuation<String?, Never>
        /// Lines before this index have been checked already.
        var scanned: Int
        /// Whether an unfinished last line is checked too.
        var unfinished: Bool
    }

    private struct State {
        var lines: [Stream: [String]] = [.output: [], .error: []]
        var partial: [Stream: [UInt8]] = [.output: [], .error: []]
        var closed: Set<Stream> = []
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
        var exitStatus: Int32?
        var exitWaiters: [UInt64: CheckedContinuation<Int32, Never>] = [:]
        /// Set once standard input is closed: its descriptor number may then belong to another file.
        var inputClosed = false
    }

    private let reaper: Reaper
    private let inputDescriptor: Int32
    private let state = Locked(State())

    /// The command line, for messages.
    package let commandLine: String

    /// Starts `executable` (looked up on `PATH` unless it contains a slash) with `arguments`.
    ///
    /// The child starts with every signal unblocked and at its default action. (Foundation's
    /// `Process` passes on the signal mask of whichever thread spawns it, and Swift's worker
    /// threads block signals: a gpsd started that way ignores SIGTERM and outlives its gpsfake.)
    /// `standardInput`, when given, is a file the child reads as its standard input instead of
    /// the pipe ``write(_:)`` feeds (a pseudo-terminal's `/dev/pts/N`, for a command that reads
    /// keys on a terminal).
    package convenience init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, standardInput: String? = nil) throws {
        try self.init(executable, arguments, environment: environment, standardInput: standardInput, blockedSignals: [])
    }

    /// Starts `executable` as ``init(_:_:environment:standardInput:)`` does, with `blockedSignals`
    /// blocked, as a program that hands over to another with `execv` may leave them (`locate
    /// publish` does, for `locate-publish`).
    package init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, standardInput: String? = nil,
        blockedSignals: [Int32]
    ) throws {
        commandLine = ([executable] + arguments).joined(separator: " ")
        let (child, input, output, error) = try Self.spawn(
            executable, arguments, environment: environment, standardInput: standardInput, blockedSignals: blockedSignals)
        inputDescriptor = input
        let reaper = Reaper(pid: child)
        self.reaper = reaper
        startReading(output, for: .output)
        startReading(error, for: .error)
        Threads.detach { [weak self] in
            let status = reaper.waitAndReap()
            let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            self?.exited(with: exitStatus)
        }
    }

    /// Reaps the child, and sends it signals only while it is there to get them.
    ///
    /// Once a child is reaped its process id is free, and the system gives it to the next process
    /// started on the machine (ids run to 32,768 here, and a test run starts thousands): a signal
    /// sent to the id after that lands on a stranger: the test run's own `tee`, or another test's
    /// daemon. (Foundation's `Process.terminate()` sends it all the same.)
    ///
    /// So the reaper first waits for the child to end without reaping it (`WNOWAIT`: the id stays
    /// the child's, a zombie's), then reaps it under the lock a signal is sent under, and a signal
    /// is sent only before that.
    private final class Reaper: Sendable {
        let pid: pid_t
        private let reaped = Locked(false)

        init(pid: pid_t) {
            self.pid = pid
        }

        /// Sends `signal` unless the child has been reaped.
        func send(_ signal: Int32) {
            reaped.withLock { reaped in
                if !reaped { kill(pid, signal) }
            }
        }

        /// Waits for the child to end, then reaps it; returns its wait status.
        func waitAndReap() -> Int32 {
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            return reaped.withLock { reaped in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}  // it has ended: at once
                reaped = true
                return status
            }
        }
    }

    /// Spawns the child with its pipes as 0, 1 and 2 and no other descriptor of this process:
    /// a descriptor a child inherits outlives its close here. A test's process is busy: a copy of
    /// another child's output pipe would delay that pipe's end of file (and so its
    /// ``waitUntilExit()``) until this child exits; a copy of its input pipe would keep it from
    /// seeing the end of its input; a copy of a client's socket (libgps opens its own) would keep
    /// the connection open after the client closed it.
    ///
    /// So every descriptor open now (listed in `/proc/self/fd`) is closed in the child, and one
    /// child is spawned at a time, its pipes close-on-exec from the start, so that no other child
    /// started here can take them (Glibc's `pipe2` and `posix_spawn_file_actions_addclosefrom_np`
    /// do not reach Swift). `dup2` gives the child its ends without the flag. Returns the child's
    /// id and the parent's ends: its input to write, its output and error to read.
    private static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]?, standardInput: String?, blockedSignals: [Int32]
    ) throws -> (pid: pid_t, input: Int32, output: Int32, error: Int32) {
        try spawning.withLock { spawned in
            spawned += 1
            var stdin: [Int32] = [-1, -1]
            var stdout: [Int32] = [-1, -1]
            var stderr: [Int32] = [-1, -1]
            guard pipe(&stdin) == 0, pipe(&stdout) == 0, pipe(&stderr) == 0 else {
                let code = errno
                for descriptor in stdin + stdout + stderr where descriptor >= 0 { close(descriptor) }
                throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
            }
            for descriptor in stdin + stdout + stderr { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, stdin[0], 0)
            posix_spawn_file_actions_adddup2(&actions, stdout[1], 1)
            posix_spawn_file_actions_adddup2(&actions, stderr[1], 2)
            for descriptor in stdin + stdout + stderr {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
            if let standardInput {
                posix_spawn_file_actions_addopen(&actions, 0, standardInput, O_RDWR, 0)
            }
            for descriptor in openDescriptors() where !(stdin + stdout + stderr).contains(descriptor) {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var mask = sigset_t()
            sigemptyset(&mask)
            for blocked in blockedSignals { sigaddset(&mask, blocked) }
            var allSignals = sigset_t()
            sigfillset(&allSignals)
            posix_spawnattr_setsigmask(&attributes, &mask)
            posix_spawnattr_setsigdefault(&attributes, &allSignals)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

            var environmentStrings = ProcessInfo.processInfo.environment.merging(environment ?? [:]) { $1 }
                .map { "\($0.key)=\($0.value)" }
            environmentStrings.sort()
            let argv = [executable] + arguments
            var child: pid_t = 0
            let status = withCStrings(argv) { argvPointers in
                withCStrings(environmentStrings) { environmentPointers in
                    posix_spawnp(&child, executable, &actions, &attributes, argvPointers, environmentPointers)
                }
            }
            for descriptor in [stdin[0], stdout[1], stderr[1]] { close(descriptor) }
            guard status == 0 else {
                for descriptor in [stdin[1], stdout[0], stderr[0]] { close(descriptor) }
                throw POSIXError(POSIXErrorCode(rawValue: status) ?? .ENOENT)
            }
            return (child, stdin[1], stdout[0], stderr[0])
        }
    }

    /// Children spawned. Not a lock of `()`: ThreadSanitizer placed a zero-sized value at the
    /// lock object's own address and reported its "modification" under the lock as a race with
    /// another thread reading the object's header before locking.
    private static let spawning = Locked(0)

    /// The descriptors above 2 open in this process now (glibc ignores a close of one that is
    /// closed by the time the child starts).
    private static func openDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var descriptors: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let descriptor = Int32(name), descriptor > 2, descriptor != own { descriptors.append(descriptor) }
        }
        return descriptors
    }

    deinit {
        reaper.send(SIGTERM)
        closeInput()
    }

    /// The process id.
    package var processIdentifier: Int32 { reaper.pid }

    /// How it ended (the exit code, or 128 + the signal), or `nil` while it runs.
    package var exitStatus: Int32? { state.withLock { $0.exitStatus } }

    /// Every complete line so far on `stream`.
    package func lines(_ stream: Stream = .output) -> [String] {
        state.withLock { $0.lines[stream] ?? [] }
    }

    /// The first line on `stream` (seen already, or still to come) for which `predicate` holds;
    /// `nil` if the stream ends first. An unfinished last line (a prompt) counts as a line unless
    /// `unfinished` is false: a predicate that keeps what it is shown wants each line once, whole.
    package func waitForLine(
        on stream: Stream = .output, unfinished: Bool = true, where predicate: @escaping @Sendable (String) -> Bool
    ) async -> String? {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: String?? = state.withLock { state in
                    let lines = state.lines[stream, default: []]
                    if let line = lines.first(where: predicate) { return .some(line) }
                    if unfinished, let line = Self.unfinishedLine(state, stream), predicate(line) { return .some(line) }
                    if state.closed.contains(stream) || Task.isCancelled { return .some(nil) }
                    state.waiters[id] = Waiter(
                        stream: stream, predicate: predicate, continuation: continuation, scanned: lines.count,
                        unfinished: unfinished)
                    return .none
                }
                if case let .some(line) = ready { continuation.resume(returning: line) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: nil)
        }
    }

    /// Writes `text` to the process's standard input; `false` if not all of it could be written
    /// (the process has closed its input, or ended).
    ///
    /// A write to a pipe whose reader has gone raises SIGPIPE, which ends the whole test process
    /// without a word: so SIGPIPE is blocked on this thread while it writes, and one the write
    /// raised is taken off before it is unblocked. The write fails with EPIPE instead.
    @discardableResult
    package func write(_ text: String) -> Bool {
        guard !state.withLock({ $0.inputClosed }) else { return false }
        let bytes = Array(text.utf8)
        return Threads.withoutPipeSignal {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(inputDescriptor, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }

    /// Closes the process's standard input (once: a second close could close a descriptor that
    /// has since been given to another file, such as a database).
    package func closeInput() {
        let open = state.withLock { state in
            defer { state.inputClosed = true }
            return !state.inputClosed
        }
        if open { close(inputDescriptor) }
    }

    /// Sends SIGTERM.
    package func terminate() {
        send(signal: SIGTERM)
    }

    /// Sends `signal`, unless the process has ended.
    package func send(signal: Int32) {
        reaper.send(signal)
    }

    private func exited(with status: Int32) {
        let waiters = state.withLock { state in
            state.exitStatus = status
            defer { state.exitWaiters = [:] }
            return state.exitWaiters
        }
        for waiter in waiters.values { waiter.resume(returning: status) }
    }

    /// The exit status, once the process has ended and its output has been read to the end.
    package func waitUntilExit() async -> Int32 {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let status = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let status = state.withLock { state in
                    if state.exitStatus == nil && !Task.isCancelled { state.exitWaiters[id] = continuation }
                    return state.exitStatus ?? (Task.isCancelled ? -1 : nil)
                }
                if let status { continuation.resume(returning: status) }
            }
        } onCancel: {
            state.withLock { $0.exitWaiters.removeValue(forKey: id) }?.resume(returning: -1)
        }
        _ = await waitForLine(on: .output) { _ in false }
        _ = await waitForLine(on: .error) { _ in false }
        return status
    }

    private static func unfinishedLine(_ state: State, _ stream: Stream) -> String? {
        guard let partial = state.partial[stream], !partial.isEmpty else { return nil }
        return String(decoding: partial, as: UTF8.self)
    }

    /// Reads `descriptor` to its end on a thread of its own.
    private func startReading(_ descriptor: Int32, for stream: Stream) {
        Threads.detach { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard let self else { break }
                self.received(count > 0 ? Array(buffer[0..<count]) : [], on: stream)
                if count <= 0 { break }
            }
            close(descriptor)
        }
    }

    /// Takes in a chunk of output; an empty chunk is the end of the stream.
    private func received(_ data: [UInt8], on stream: Stream) {
        var ready: [(CheckedContinuation<String?, Never>, String?)] = []
        state.withLock { state in
            if data.isEmpty {
                if let rest = state.partial[stream], !rest.isEmpty {
                    state.lines[stream, default: []].append(String(decoding: rest, as: UTF8.self))
                }
                state.partial[stream] = []
                state.closed.insert(stream)
            } else {
                var partial = state.partial.removeValue(forKey: stream) ?? []
                var lineStart = 0
                partial.append(contentsOf: data)
                let newStart = partial.count - data.count
                for index in newStart..<partial.count where partial[index] == UInt8(ascii: "\n") {
                    var line = partial[lineStart..<index]
                    if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                    state.lines[stream, default: []].append(String(decoding: line, as: UTF8.self))
                    lineStart = index + 1
                }
                partial.removeFirst(lineStart)
                // Prompts without newlines (gpsfake -i) must not pile up: cut very long lines.
                if partial.count > 1 << 16 {
                    state.lines[stream, default: []].append(String(decoding: partial, as: UTF8.self))
                    partial.removeAll()
                }
                state.partial[stream] = partial
            }
            let lines = state.lines[stream, default: []]
            for (id, waiter) in state.waiters where waiter.stream == stream {
                if let line = lines[waiter.scanned...].first(where: waiter.predicate) {
                    state.waiters[id] = nil
                    ready.append((waiter.continuation, line))
                } else if waiter.unfinished, let line = Self.unfinishedLine(state, stream), waiter.predicate(line) {
                    state.waiters[id] = nil
                    ready.append((waiter.continuation, line))
                } else if !state.closed.contains(stream) {
                    state.waiters[id]?.scanned = lines.count
                } else {
                    state.waiters[id] = nil
                    ready.append((waiter.continuation, nil))
                }
            }
        }
        for (continuation, line) in ready { continuation.resume(returning: line) }
    }
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings, as execve(2) takes them.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return body(pointers)
}
