#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import LocationCore

/// How the reports of a gpsd JSON log become the events a replay plays (a fix, a no-fix report, a
/// satellite report). Reading them as a `GPSDClient` reads gpsd's takes libgps, which this module
/// does not link: `Simulators` gives that reading (`GPSDReportReading.libgps`) to the recordings it
/// opens, and to the devices it makes of gpsd logs.
package struct GPSDReportReading: Sendable {
    /// Reads one report, received at the given time: its event, or `nil` for a report a location
    /// source does not pass on. A reader keeps state between calls: one per stream, on one thread.
    package typealias Reader = (String, Date) -> LocationEvent?

    /// Makes a reader for one stream.
    package let makeReader: @Sendable () -> Reader

    package init(makeReader: @escaping @Sendable () -> Reader) {
        self.makeReader = makeReader
    }
}
