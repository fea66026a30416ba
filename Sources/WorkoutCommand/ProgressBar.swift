import CommandSupport
import Foundation
import LocationFacade
import GPSCore

/// A progress bar on standard error, for a long import on a terminal: redrawn at most ten times
/// a second, erased when done. Nothing is drawn when standard error is not a terminal.
final class ProgressBar: Sendable {
    private struct State {
        var lastDrawn: UInt64 = 0
        var drawn = false
    }

    private let label: String
    private let state = Locked(State())

    /// The files worth a bar: over 4 MB, with standard error on a terminal.
    static func forFile(_ path: String) -> ProgressBar? {
        guard isatty(2) == 1 else { return nil }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0  // no size: no bar; the import says why
        return size > 4 << 20 ? ProgressBar(label: (path as NSString).lastPathComponent) : nil
    }

    init(label: String) {
        self.label = label
    }

    /// Called from the reader's thread after each chunk.
    func update(_ done: Int64, _ total: Int64?) {
        guard let total, total > 0 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let draw = state.withLock { state in
            guard now - state.lastDrawn >= 100_000_000 || done >= total else { return false }
            state.lastDrawn = now
            state.drawn = true
            return true
        }
        guard draw else { return }
        let fraction = min(1, Double(done) / Double(total))
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let text = String(format: "\r%@ [%@] %3d%% %.0f/%.0f MB", label, bar, Int(fraction * 100), Double(done) / 1e6, Double(total) / 1e6)
        Output.errorText(text)
    }

    /// Erases the bar.
    func finish() {
        if state.withLock({ $0.drawn }) { Output.errorText("\r\u{1B}[K") }
    }
}
