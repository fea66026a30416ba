import LocationFacade

extension FakeGPSDServer {
    /// Plays the script once (or, with `loop`, again and again with its times moved on): waits for
    /// the start, then sends each report when it is due (recorded pace) or when the clients have
    /// room (fast pace), performing the faults on the way (in the first pass only).
    /// It holds no reference to the server, so a server dropped without `shutdown()` still goes away.
    static func runTimeline(
        core: ServerCore, entries: [GPSDScript.Entry], pace: Pace, faults: [GPSDFault], loop: Bool, clock: ElapsedClock
    ) async {
        await core.waitUntilStarted()
        var origin = clock.now
        var index = 0
        var cycle = 0
        let loopLength = GPSDScript(entries: entries).loopLength
        while index < entries.count {
            if Task.isCancelled { return }
            let faults = cycle == 0 ? faults : []
            for case let .stall(afterMessages, duration) in faults where afterMessages == index {
                guard let duration else {
                    await waitUntilCancelled()
                    return
                }
                try? await clock.sleep(for: duration)
                origin += duration
            }
            switch pace {
            case let .recorded(speed):
                let due = origin + entries[index].offset / speed
                if clock.now < due {
                    do { try await clock.sleep(until: due) } catch { return }
                }
            case .asFastAsClientsRead:
                await core.waitForRoom()
            }
            if Task.isCancelled { return }

            if let pause = splitPause(at: index, in: faults) {
                core.send(entryAt: index, part: .firstHalf)
                await core.waitUntil { $0.isFlushed }
                try? await clock.sleep(for: pause)
                core.send(entryAt: index, part: .secondHalf)
            } else {
                core.send(entryAt: index, shiftedBy: GPSDScript.seconds(loopLength * cycle))
            }
            index += 1
            if index == entries.count, loop, loopLength > .zero {
                index = 0
                cycle += 1
                if case let .recorded(speed) = pace { origin += loopLength / speed }
            }

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
