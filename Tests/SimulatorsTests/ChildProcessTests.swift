import Foundation
import Testing
import TestSupport
import Simulators
@testable import SimulatorsCore

/// The child processes the fakes and the tests start (gpsd, gpsfake, dbus-daemon, the commands):
/// a signal meant for one never reaches another process, and writing to one that has gone never
/// ends the test process. The first alone in `scripts/test`: a process started anywhere takes the
/// id it hands on.
extension Stage.Alone {
    /// With a time limit of its own: a stage of its own has no neighbour whose limit would end
    /// a hang here, and in one fresh-clone run this suite's first test hung with its stranger
    /// still waiting for WINCH (the step was not known: each now says if it does not end).
    @Suite(.serialized, .tags(.childProcess), .timeLimit(.minutes(1))) struct ChildProcessTests {
        /// Whether this process may choose the id the next process gets (root, on Linux).
        static let choosesProcessIDs = access("/proc/sys/kernel/ns_last_pid", W_OK) == 0

        /// Once a child has ended and been reaped, the system gives its id to the next process started.
        /// A signal the ended child's object sends after that (its `terminate()`, its deinit) must not
        /// reach that stranger (the test run's own `tee`, say, or another test's daemon).
        @Test(.enabled(if: choosesProcessIDs, "needs to choose the next process id: root"))
        func signalsForAnEndedChildReachNoProcessGivenItsID() async throws {
            var ended: ChildProcess? = try ChildProcess("true", [])
            let id = try #require(ended?.processIdentifier)
            #expect(await step("the first child's end") { await ended?.waitUntilExit() } == 0)
            // The stranger says which signals reach it (Python runs the handlers of signals that
            // came together lowest first); WINCH ends it.
            let script = """
                import os, signal
                signal.signal(signal.SIGTERM, lambda *_: print("TERM", flush=True))
                signal.signal(signal.SIGWINCH, lambda *_: (print("WINCH", flush=True), os._exit(0)))
                print("ready", flush=True)
                while True: signal.pause()
                """
            let stranger = try Self.process(withID: id, "/usr/bin/python3", ["-c", script])
            #expect(await step("the stranger's ready line") { await stranger.waitForLine { $0 == "ready" } } == "ready")
            ended?.terminate()
            ended?.send(signal: SIGKILL)
            weak let released = ended
            ended = nil  // its deinit sends SIGTERM to a child still running
            // The deinit has run (a reader thread may hold it a moment).
            await step("the first child's release") { await waitUntil { released == nil } }
            stranger.send(signal: SIGWINCH)  // pending signals come lowest first: a TERM sent before would come before
            #expect(await step("the stranger's end") { await stranger.waitUntilExit() } == 0)
            let heard = stranger.lines().joined(separator: "\n")
            #expect(heard.contains("WINCH") && !heard.contains("TERM"), "the stranger heard: \(heard)")
        }

        /// Starts `executable` as the process with `id`, which has ended: the system gives the next
        /// process the id after the last one given, which root may set. Another process starting in
        /// between may take it, so this tries again, ending each child that missed it.
        static func process(withID id: pid_t, _ executable: String, _ arguments: [String]) throws -> ChildProcess {
            for _ in 0..<50 {
                try String(id - 1).write(toFile: "/proc/sys/kernel/ns_last_pid", atomically: false, encoding: .utf8)
                let process = try ChildProcess(executable, arguments)
                if process.processIdentifier == id { return process }
                process.send(signal: SIGKILL)
            }
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "no child got process id \(id) in 50 tries"])
        }
    }
}

/// Writing to a child process: beside the other suites, and under ThreadSanitizer (its reader and
/// reaper threads), where the process-id test above cannot be.
@Suite(.tags(.childProcess)) struct ChildProcessWriteTests {
    /// A child that ended without reading its input: writing to it fails (EPIPE) instead of raising
    /// SIGPIPE, which would end the test process without a word. The write is made from a thread
    /// that does not block SIGPIPE, as a program's own thread does not (Swift's task threads do).
    @Test func writingToAChildThatHasGoneLeavesThisProcessRunning() async throws {
        let child = try ChildProcess("true", [])
        #expect(await child.waitUntilExit() == 0)
        let written: Bool = await withCheckedContinuation { continuation in
            Thread {
                var pipeSignal = sigset_t()
                sigemptyset(&pipeSignal)
                sigaddset(&pipeSignal, SIGPIPE)
                pthread_sigmask(SIG_UNBLOCK, &pipeSignal, nil)
                continuation.resume(returning: child.write("go\n"))
            }.start()
        }
        #expect(!written)
    }
}
