import LocationCore

/// Where a replay device has got to in its recording: it reads the entries in order (from an
/// array, or from a file as it plays), pass after pass for a loop, and says when each one plays on
/// the device's clock. Only what the next step needs is held, so a recording of any length plays
/// in constant memory.
///
/// Pass 0 starts at the device's start offset and teaches the cursor the recording's shape (its
/// first and last offsets, its usual gap); every later pass plays the whole recording again, its
/// times moved on by one pass (``loopLength``). A device that was stopped for a long time skips
/// whole passes by arithmetic, without reading them.
///
/// Not thread-safe: the device uses it under a lock of its own (reading a file may block while a
/// GPX parser thread catches up, and no other state waits on that lock).
final class ReplayCursor {
    typealias Entry = ReplayLocationSource.Entry

    /// One upcoming entry: what it is, the pass it is in, and when it plays on the device's clock.
    struct Upcoming {
        var entry: Entry
        var pass: Int
        var due: Duration
    }

    private let open: () throws(ReplayRecording.ReadError) -> any ReplayStream<Entry>
    private let speed: Double
    private let loops: Bool
    private let startOffset: Duration

    private var stream: (any ReplayStream<Entry>)?
    private var peeked: Entry?
    private var ended = false
    /// The pass being read, and when (on the device's clock) its `skip` offset plays.
    private(set) var pass = 0
    private var passOrigin: Duration = .zero
    private var skip: Duration

    // The recording's shape, learned in pass 0.
    private var firstOffset: Duration?
    private var lastOffset: Duration?
    private var lastLocationOfRecording: (location: Location, offset: Duration)?
    private var gapSample: [Duration] = []
    /// One pass, the usual gap before the next included; known once pass 0 has been read.
    private(set) var loopLength: Duration?

    /// The last fix the replay has passed (played or skipped), as played, and when it played.
    private(set) var lastFix: (location: Location, playedAt: Duration)?
    /// Why the recording could not be read on, if it could not.
    private(set) var failure: ReplayRecording.ReadError?

    /// The usual gap is the median of the first gaps between entries (this many at most, so a
    /// recording of any length is measured in constant memory).
    static let gapSampleSize = 1024

    init(
        speed: Double, loops: Bool, startOffset: Duration,
        open: @escaping () throws(ReplayRecording.ReadError) -> any ReplayStream<Entry>
    ) {
        self.open = open
        self.speed = speed
        self.loops = loops
        self.startOffset = startOffset
        self.skip = startOffset
    }

    /// Sets when the start offset plays: the device's clock at its first start.
    func begin(at origin: Duration) {
        passOrigin = origin
    }

    /// The next entry and when it plays, reading ahead (and into the next pass of a loop); `nil`
    /// once the recording has ended or cannot be read on (see ``failure``).
    func peek() -> Upcoming? {
        while true {
            if let peeked { return Upcoming(entry: peeked, pass: pass, due: due(peeked.offset)) }
            if ended { return nil }
            do {
                if stream == nil { stream = try open() }
                guard let entry = try stream?.next() else {
                    endPass()
                    continue
                }
                if pass == 0 {
                    learn(entry)
                    if entry.offset < startOffset { continue }
                }
                peeked = entry
            } catch {
                failure = error
                ended = true
                stream = nil
                return nil
            }
        }
    }

    /// Takes the entry ``peek()`` returned: it has played (or been passed over).
    func take() {
        guard let upcoming = peek() else { return }
        peeked = nil
        if case let .location(location) = upcoming.entry.event {
            lastFix = (shifted(location, pass: upcoming.pass), upcoming.due)
        }
    }

    /// Passes over every entry due before `time` without playing it. Whole passes of a loop are
    /// skipped by arithmetic once the recording's length is known.
    func pass(until time: Duration) {
        while let upcoming = peek(), upcoming.due < time {
            if let loopLength, loopLength > .zero, let firstOffset, let lastOffset, pass > 0 {
                // This pass ends (its last entry plays) at `passEnd`; whole passes before `time` go at once.
                let passSpan = loopLength / speed
                let passEnd = passOrigin + (lastOffset - skip) / speed
                let skippable = passEnd < time ? Int((time - passEnd) / passSpan) : 0
                if skippable > 0 {
                    passOrigin += passSpan * skippable
                    pass += skippable
                    stream = nil
                    peeked = nil
                    if let last = lastLocationOfRecording {
                        lastFix = (shifted(last.location, pass: pass - 1), passOrigin - passSpan + (last.offset - firstOffset) / speed)
                    }
                    continue
                }
            }
            take()
        }
    }

    /// `location` as it plays in `pass`: simulated, its times moved on by `pass` loop lengths.
    func shifted(_ location: Location, pass: Int) -> Location {
        var location = location
        location.isSimulated = true
        if pass > 0, let loopLength {
            let seconds = GPSDScript.seconds(loopLength * pass)
            location.time = location.time?.addingTimeInterval(seconds)
            location.receivedAt = location.receivedAt.addingTimeInterval(seconds)
        }
        return location
    }

    // MARK: - Passes

    private func due(_ offset: Duration) -> Duration {
        passOrigin + (offset - skip) / speed
    }

    private func learn(_ entry: Entry) {
        if firstOffset == nil { firstOffset = entry.offset }
        if let lastOffset, gapSample.count < Self.gapSampleSize, entry.offset > lastOffset {
            gapSample.append(entry.offset - lastOffset)
        }
        lastOffset = entry.offset
        if case let .location(location) = entry.event { lastLocationOfRecording = (location, entry.offset) }
    }

    /// The stream has ended: the recording ends, or (in a loop) the next pass begins.
    private func endPass() {
        stream = nil
        if pass == 0 {
            let sorted = gapSample.sorted()
            let interval = sorted.isEmpty ? Duration.seconds(1) : sorted[sorted.count / 2]
            if let firstOffset, let lastOffset { loopLength = lastOffset - firstOffset + interval }
            gapSample = []
        }
        guard loops, let loopLength, loopLength > .zero, let firstOffset, let lastOffset else {
            ended = true
            return
        }
        let interval = loopLength - (lastOffset - firstOffset)
        passOrigin += (lastOffset + interval - skip) / speed
        skip = firstOffset
        pass += 1
    }
}
