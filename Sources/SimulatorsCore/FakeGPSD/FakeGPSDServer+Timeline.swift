import LocationCore

extension FakeGPSDServer {
    /// Where a server's reports come from: a script in memory, or a recording read as it plays
    /// (opened again for each pass of a loop), so a recording of any length is served in constant memory.
    enum Reports: Sendable {
        case script(GPSDScript)
        case stream(@Sendable () throws(ReplayRecording.ReadError) -> any ReplayStream<GPSDScript.Entry>)

        func open() throws(ReplayRecording.ReadError) -> any ReplayStream<GPSDScript.Entry> {
            switch self {
            case let .script(script): ArrayStream(script.entries)
            case let .stream(open): try open()
            }
        }
    }

    /// Plays the reports once (or, with `loop`, again and again with their times moved on): waits
    /// for the start, then sends each report when it is due (recorded pace) or when the clients
    /// have room (fast pace), performing the faults on the way (in the first pass only). A timeline
    /// started by the first WATCH also waits, its time stopped, while no client watches: a looping
    /// replay left alone sleeps instead of playing to nobody. One started at once plays on
    /// regardless, as gpsd reads a device it keeps open (`gpsd -n`).
    ///
    /// It holds no reference to the server, so a server dropped without `shutdown()` still goes away.
    static func runTimeline(
        core: ServerCore, reports: Reports, pace: Pace, faults: [GPSDFault], loop: Bool, waitsForWatchers: Bool,
        clock: ElapsedClock
    ) async {
        await core.waitUntilStarted()
        // From when the server saw the timeline start, not from when this task came to run.
        var origin = core.watchTimes.startedAt ?? clock.now
        var index = 0
        var cycle = 0
        var shape = Shape()
        var stream: any ReplayStream<GPSDScript.Entry>
        do {
            stream = try reports.open()
        } catch {
            core.fail(error)
            return
        }
        while true {
            if Task.isCancelled { return }
            let entry: GPSDScript.Entry
            do {
                guard let next = try stream.next() else {
                    // The end of a pass: the end, or the next pass of a loop.
                    if cycle == 0 { shape.finish() }
                    guard loop, let loopLength = shape.loopLength, loopLength > .zero, index > 0 else { break }
                    cycle += 1
                    if case let .recorded(speed) = pace { origin += loopLength / speed }
                    stream = try reports.open()
                    continue
                }
                entry = next
            } catch {
                core.fail(error)
                return
            }
            if cycle == 0 { shape.learn(entry.offset) }
            let faults = cycle == 0 ? faults : []
            for case let .stall(afterMessages, duration) in faults where afterMessages == index {
                guard let duration else {
                    await waitUntilCancelled()
                    return
                }
                try? await clock.sleep(for: duration)  // cancelled: the next check ends the loop
                origin += duration
            }
            switch pace {
            case let .recorded(speed):
                var unwatched = Duration.zero
                if waitsForWatchers {
                    await core.waitForWatcher()
                    unwatched = core.watchTimes.unwatched  // time stood still while nobody watched
                }
                let due = origin + unwatched + entry.offset / speed
                if clock.now < due {
                    do { try await clock.sleep(until: due) } catch { return }
                }
            case .asFastAsClientsRead:
                await core.waitForRoom()
            }
            if Task.isCancelled { return }

            if let pause = splitPause(at: index, in: faults) {
                core.send(entry, part: .firstHalf)
                await core.waitUntil { $0.isFlushed }
                try? await clock.sleep(for: pause)  // cancelled: the next check ends the loop
                core.send(entry, part: .secondHalf)
            } else {
                core.send(entry, shiftedBy: GPSDScript.seconds((shape.loopLength ?? .zero) * cycle))
            }
            index += 1

            for fault in faults {
                switch fault {
                case let .garbageLine(afterMessages, line) where afterMessages == index:
                    core.sendRaw(line)
                case let .closeConnections(afterMessages) where afterMessages == index:
                    core.closeAllWhenFlushed()
                    await core.waitUntil { $0.connections == 0 }
                case let .shutDown(afterMessages) where afterMessages == index:
                    await core.stopListening()
                    core.closeAllWhenFlushed()
                    await core.waitUntil { $0.connections == 0 }
                    core.shutdown()
                    return
                default:
                    break
                }
            }
        }
        core.markFinished()
    }

    /// The shape of a pass, learned in the first: its first and last offsets and its usual gap
    /// (the median of the first gaps, so a recording of any length is measured in constant memory).
    private struct Shape {
        var first: Duration?
        var last: Duration?
        var gaps: [Duration] = []
        var loopLength: Duration?

        mutating func learn(_ offset: Duration) {
            if first == nil { first = offset }
            if let last, offset > last, gaps.count < ReplayCursor.gapSampleSize { gaps.append(offset - last) }
            last = offset
        }

        mutating func finish() {
            guard let first, let last else { return }
            let sorted = gaps.sorted()
            loopLength = last - first + (sorted.isEmpty ? .seconds(1) : sorted[sorted.count / 2])
        }
    }

    private static func splitPause(at index: Int, in faults: [GPSDFault]) -> Duration? {
        for case let .splitLine(splitIndex, pause) in faults where splitIndex == index {
            return pause
        }
        return nil
    }

    private static func waitUntilCancelled() async {
        let never = AsyncStream<Void> { _ in }
        for await _ in never {}
    }
}
