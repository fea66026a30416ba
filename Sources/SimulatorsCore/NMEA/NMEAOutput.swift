import LocationCore

/// Somewhere a fake receiver writes NMEA 0183 sentences for a real reader: a pseudo-terminal
/// that gpsd opens (``FakeSerialDevice``), a Unix socket that GeoClue connects to
/// (``NMEASocketServer``). Both play recordings the same way.
public protocol NMEAOutput: Sendable {
    /// Writes `sentences` (each ending in CR LF) at once, dropping what the reader does not take
    /// in time, as a serial line does. Returns how many bytes went out.
    @discardableResult
    func write(_ sentences: [String]) -> Int
}

extension NMEAOutput {
    /// Plays `log` at its recorded pace divided by `speed` on `clock`, once or (with `loop`) until
    /// the task is cancelled. Returns when the log has been played; throws `CancellationError`.
    public func play(_ log: NMEALog, speed: Double = 1, loop: Bool = false, clock: some Clock<Duration> = ContinuousClock()) async throws {
        precondition(speed > 0 && speed.isFinite, "a replay needs a positive speed")
        let elapsed = ElapsedClock(clock)
        var origin = elapsed.now
        repeat {
            for epoch in log.epochs {
                try await elapsed.sleep(until: origin + epoch.offset / speed)
                write(epoch.sentences)
            }
            origin = origin + log.duration / speed
        } while loop
        try Task.checkCancellation()
    }

    /// Plays `recording`'s sentences (the recorded ones for an NMEA log, else written from its
    /// fixes), reading the file as it plays, so a recording of any length plays in constant
    /// memory; as ``play(_:speed:loop:clock:)-(NMEALog,_,_,_)`` otherwise. A pass lasts until its
    /// last epoch and a second more.
    ///
    /// - Throws: `CancellationError`, or ``ReplayRecording/ReadError`` when the file cannot be
    ///   read on (the epochs before it have been played).
    public func play(
        _ recording: ReplayRecording, speed: Double = 1, loop: Bool = false, clock: some Clock<Duration> = ContinuousClock()
    ) async throws {
        precondition(speed > 0 && speed.isFinite, "a replay needs a positive speed")
        let elapsed = ElapsedClock(clock)
        var origin = elapsed.now
        repeat {
            let epochs = try recording.nmeaStream()
            var last: Duration?
            while let epoch = try epochs.next() {
                try await elapsed.sleep(until: origin + epoch.offset / speed)
                write(epoch.sentences)
                last = epoch.offset
            }
            guard let last else { break }  // nothing to play: a loop would only spin
            origin = origin + (last + .seconds(1)) / speed
        } while loop
        try Task.checkCancellation()
    }
}
