import ArgumentParser
import CommandSupport
import Foundation
import Workout

struct Recover: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "List the sessions a crash interrupted; save them as workouts (--end) or delete them (--discard).",
        discussion: """
            A session (`workout record`) writes what it records to the store as it goes, out of sight \
            until it ends. When its process dies first (a crash, kill -9, a power cut), what it had \
            written stays, as an interrupted session. --end saves each as a workout with all it had \
            written (with --json, one object per line, keys as `workout show --json`); --discard \
            deletes them. A program can resume one instead (WorkoutSession.resume in the Workout \
            library): recording goes on in the same workout, the time it was down a pause.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Save every interrupted session as a workout.")
    var end = false

    @Flag(help: "Delete every interrupted session.")
    var discard = false

    @Flag(help: "One JSON object per line.")
    var json = false

    func validate() throws {
        if end && discard { throw ValidationError("Give --end or --discard, not both.") }
    }

    func run() async throws {
        let store = try storeOptions.open()
        let sessions = try await storeCall { try await store.interruptedSessions() }
        if sessions.isEmpty, !json { Output.error("No interrupted sessions in \(store.path ?? "the store").") }
        for session in sessions {
            if discard {
                try await storeCall { try await store.discard(session) }
                if !json { Output.line("Discarded \(session.id.uuidString) (\(session.points) points).") }
            } else if end {
                guard let workout = try await storeCall({ try await store.end(session) }) else {
                    if !json { Output.line("Discarded \(session.id.uuidString): it recorded nothing (\(session.isIndoor == true ? "no sample" : "no fix")).") }
                    continue
                }
                if json {
                    Output.line(Format.jsonLine(try await Show.object(workout, in: store)))
                } else {
                    let recorded = session.isIndoor == true ? "\(session.samples) samples, indoors" : "\(session.points) points"
                    Output.line("Saved \(workout.id.uuidString) (\(workout.activityType)): \(Format.distance(workout.totals.distance)), "
                        + "\(Format.duration(workout.duration)), \(recorded).")
                }
            } else if json {
                Output.line(Format.jsonLine([
                    "id": session.id.uuidString, "activity": session.activityType.rawValue,
                    "start": Format.dateTime(session.start), "points": session.points, "samples": session.samples,
                    "indoor": session.isIndoor as Any? ?? NSNull(),
                    "last_fix": session.lastFix.map(Format.dateTime) as Any? ?? NSNull(),
                ]))
            } else {
                Output.line("\(session.id.uuidString)  \(session.activityType.rawValue)\(session.isIndoor == true ? " (indoors)" : "")  "
                    + "\(Format.dateTime(session.start))  \(session.points) points, \(session.samples) samples"
                    + (session.lastFix.map { ", last fix \(Format.dateTime($0))" } ?? ""))
            }
        }
    }
}
