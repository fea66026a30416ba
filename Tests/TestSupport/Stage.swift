import Testing

/// Where `scripts/test` runs a suite. A suite declared inside ``Alone`` (`extension Stage.Alone {
/// @Suite struct ... }`) runs in a stage of its own, one test at a time, after the rest: its
/// identifier then holds `Stage/Alone/`, which `swift test --filter` and `--skip` select on (Swift
/// Testing 6.3 selects by identifier, not by tag). Every other suite runs with all the rest, in
/// parallel.
public enum Stage {
    /// The suites that must have the machine to themselves: a test that needs a process id given
    /// again to a process of its own, one whose signal must land before a child finishes work
    /// that no event of the child can hold, one that holds every thread of the concurrency pool on
    /// purpose (every test beside it would wait), one whose child must keep a real-time pace (a
    /// recording at ten times a ride's speed), or one that loads both cores for tens of seconds
    /// (package builds), which would hold such children off the cores. Each says why beside its
    /// `@Suite`.
    ///
    /// Everything else runs in one parallel stage, so a test there waits on events and test
    /// clocks, and keeps a wall-clock bound only for a smoke test of a real-time path, with room
    /// for a loaded two-core machine (30 s for what takes milliseconds when idle).
    public enum Alone {}
}

extension Tag {
    /// Runs a real gpsd (through gpsfake or a pseudo-terminal).
    @Tag public static var realGPSD: Self
    /// Starts child processes: our commands, gpsd's tools, Python peers.
    @Tag public static var childProcess: Self
    /// Starts a private D-Bus daemon.
    @Tag public static var privateBus: Self
    /// Reads a public corpus or gpsd's regression logs.
    @Tag public static var corpus: Self
    // No tag for the stage of its own: being declared inside ``Stage/Alone`` is what puts a suite
    // there, and a tag beside it could say otherwise.
}

#if canImport(Glibc)
import Glibc
#endif

/// Whether this test process runs under ThreadSanitizer (`swift test --sanitize=thread`), for a
/// trait that leaves a test to the plain run: `.disabled(if: ThreadSanitizer.isRunning, "why")`.
public enum ThreadSanitizer {
    /// TSan's runtime is in the process.
    public static let isRunning: Bool = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
}
