import Foundation
import Simulators
import Testing
import TestSupport

/// `workout record` signalled as soon as it has connected to gpsd: it ends as its help says
/// (saved, 0, or 75 when no fix had come), never by the signal and never going on recording.
/// Interrupts, which it shares with `locate`, ignored the signal until libdispatch set up the
/// Dispatch source that caught it, later, on a thread of its own: a signal in between was lost.
/// (A lost one fails by the time limit: the recorder goes on, reconnecting to the fake.)
@Suite("workout record signalled at once", .timeLimit(.minutes(3)))
struct RecordingEarlySignalTests {
    @Test func aSignalAsSoonAsItConnectsEndsIt() async throws {
        var broken: [String] = []
        for run in 0..<20 {
            let recording = try Recording(.fixes(StraightRun.steady()))
            await recording.gpsd.waitUntil { $0.watchers > 0 }
            let signal = run.isMultiple(of: 2) ? SIGINT : SIGTERM
            recording.recorder.send(signal: signal)
            let outcome = await recording.outcome()
            if ![0, 75].contains(outcome.status) { broken.append("run \(run), signal \(signal): \(outcome)") }
        }
        #expect(broken.isEmpty, "\(broken)")
    }
}
