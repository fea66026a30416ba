/// A misbehaviour a ``FakeGPSDServer`` performs on demand, to test how clients cope.
///
/// Positions count script reports already sent: `afterMessages: 3` acts once the first three
/// reports have gone out. Each fault acts once.
public enum GPSDFault: Sendable, Hashable {
    /// Closes every client connection once `count` reports have gone out, as a crashing gpsd
    /// would. The server keeps listening, and the script resumes for clients that come back.
    case closeConnections(afterMessages: Int)
    /// Sends nothing more for `duration` (on the server's clock) after `afterMessages` reports;
    /// `nil` stalls until the server stops. Connections stay open.
    case stall(afterMessages: Int, duration: Duration?)
    /// Sends `line` (not a report: by default not even JSON) after `afterMessages` reports.
    case garbageLine(afterMessages: Int, line: String = "this is not JSON")
    /// Sends report number `index` (from 0) in two writes, `pause` apart on the server's clock, so
    /// a client reads half a line first.
    case splitLine(index: Int, pause: Duration)
    /// Goes away for good once `count` reports have gone out, as a gpsd that crashes and is not
    /// restarted: it stops listening first, then closes every connection once its output is
    /// written, so a client that tries to come back finds nothing.
    case shutDown(afterMessages: Int)
    /// Ignores WATCH requests entirely: no answer and no reports, as if the request were lost.
    case ignoreWatch
}
