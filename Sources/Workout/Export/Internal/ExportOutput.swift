import Foundation

/// Where an export's bytes go: the caller's closure, a file's `write(2)`, a `Data`.
typealias ExportSink = (UnsafeRawBufferPointer) throws -> Void

/// The bytes of one export on their way out: gathered in a buffer and handed to the sink each time
/// it passes ``flushThreshold``, so an export holds one buffer whatever the route's length.
struct ExportOutput {
    /// About how many bytes are gathered before the sink is called.
    static let flushThreshold = 64 * 1024

    /// The bytes not yet handed to the sink; writers append here.
    var bytes: [UInt8] = []
    /// Bytes handed to the sink so far.
    private(set) var flushed: Int64 = 0

    let workoutID: UUID
    /// The file being written, for errors; `nil` when the sink is the caller's closure.
    let path: String?

    init(workoutID: UUID, path: String?) {
        self.workoutID = workoutID
        self.path = path
        bytes.reserveCapacity(Self.flushThreshold + 4_096)
    }

    /// Every byte written so far, flushed or not.
    var count: Int64 { flushed + Int64(bytes.count) }

    /// Hands the buffer to `sink` when it is full enough.
    @inline(__always)
    mutating func flushIfFull(_ sink: ExportSink) throws(WorkoutStoreError) {
        if bytes.count >= Self.flushThreshold { try flush(sink) }
    }

    /// Hands whatever is buffered to `sink`. Throws ``WorkoutStoreError/exportFailed(workoutID:path:reason:)``
    /// when the sink throws.
    mutating func flush(_ sink: ExportSink) throws(WorkoutStoreError) {
        guard !bytes.isEmpty else { return }
        do {
            try bytes.withUnsafeBytes { try sink($0) }
        } catch let error as WorkoutStoreError {
            throw error
        } catch {
            throw .exportFailed(workoutID: workoutID, path: path, reason: "\(error)")
        }
        flushed += Int64(bytes.count)
        bytes.removeAll(keepingCapacity: true)
    }
}
