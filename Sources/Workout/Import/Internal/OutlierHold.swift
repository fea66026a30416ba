/// The odd one out among a file's moments: a record (or track point) misdated far ahead of the
/// ones around it, which would otherwise make every moment after it "earlier than the one before"
/// and drop them all. It is told as the live session's admission tells it (``FixAdmission``): a
/// moment dated more than ``gap`` (ten minutes) ahead of the moment after it, which goes back
/// (and not before the moment before it), is the odd one out, and is skipped.
///
/// So that nothing is decided before the next moment is seen, the importer holds back a moment
/// dated more than ``gap`` after the last one admitted (and the first of an activity), with the
/// items of the file that come after it (timer events, laps), until the next moment with a time
/// the activity can take gives the verdict. Every other moment goes straight through. At the end
/// of an activity, or past ``maximumQueued`` items or ``maximumQueuedBytes`` of them, the moment
/// held is let through.
struct OutlierHold<Item> {
    /// How far ahead of the moment after it a moment must be dated to be the odd one out: the
    /// live session's ``FixAdmission/outlierGap``.
    static var gap: Double { FixAdmission.outlierGap }
    /// The most items queued behind a moment held; past it the moment is let through.
    static var maximumQueued: Int { 1_024 }
    /// The most bytes of items (as the caller counts them) queued behind a moment held: a FIT
    /// message may hold 130 KB; past it the moment is let through.
    static var maximumQueuedBytes: Int { 4 << 20 }

    /// A moment held back, and what came after it in the file.
    struct Held {
        var time: Double
        /// Where it lies in its file (a FIT record's offset, a TCX point's line).
        var position: Int
        var moment: Item
        var after: [Item] = []
        var afterBytes = 0
    }

    /// What the next moment says of the one held.
    enum Verdict {
        /// It is the odd one out: skip it, then take what came after it.
        case odd(Held)
        /// It stands: take it, then what came after it.
        case stands(Held)
    }

    private(set) var held: Held?

    var isHolding: Bool { held != nil }

    /// Whether a moment at `time` (one the activity can take) must wait for the next: it is the
    /// first, or dated more than ``gap`` after `last`, the last moment admitted.
    static func mustWait(_ time: Double, after last: Double?) -> Bool {
        last.map { time - $0 > gap } ?? true
    }

    /// Holds `moment`, at `time` and `position`.
    mutating func hold(_ moment: Item, time: Double, position: Int) {
        precondition(held == nil, "a moment is held already")
        held = Held(time: time, position: position, moment: moment)
    }

    /// Queues an item of about `bytes` bytes that came after the moment held; returns the moment
    /// (and what came after it) to let through when the queue is full.
    mutating func queue(_ item: Item, bytes: Int) -> Held? {
        held?.after.append(item)
        held?.afterBytes += bytes
        guard let held else { return nil }
        return held.after.count >= Self.maximumQueued || held.afterBytes >= Self.maximumQueuedBytes ? release() : nil
    }

    /// The verdict of the next moment the activity can take, at `time`, on the moment held,
    /// which it releases.
    mutating func judge(next time: Double) -> Verdict {
        let waiting = release()!
        return waiting.time - time > Self.gap ? .odd(waiting) : .stands(waiting)
    }

    /// Lets the moment held go, if any: the activity ends, or the queue is full.
    mutating func release() -> Held? {
        defer { held = nil }
        return held
    }

    /// Why the odd one out was skipped: "its time ... is 3600 s ahead of the record after it ...".
    static func reason(_ held: Held, next time: Double, moment: String) -> String {
        let ahead = Int((held.time - time).rounded())
        return "its time \(ActivityAssembler.text(held.time)) is \(ahead) s ahead of the \(moment) after it "
            + "(\(ActivityAssembler.text(time))), which goes back: taken for a misdated \(moment), and skipped"
    }
}
