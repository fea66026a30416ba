import Foundation
import Simulators
import Testing
import TestSupport
import Workout
@testable import WorkoutUpload

/// Inside FitTrackeeTests, whose serial order keeps the suites that share its server apart: two
/// workouts starting at the same second (our GPX fixture's morning run and Garmin's FIT run) would
/// each be counted as the other's at the server.
extension Stage.Alone.FitTrackeeTests {
    /// `workout upload` stopped by a signal, and `workout upload --watch`, as the help promises.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct UploadCommandTests {
        struct Folder {
            let path = NSTemporaryDirectory() + "upload-command-" + UUID().uuidString
            var store: String { path + "/workouts.sqlite" }
            var credentials: String { path + "/credentials.json" }
        }

        static let workout = Repository.builtExecutable("workout").path

        /// A store holding the project's two runs (GPX), imported by the command.
        static func imported(in folder: Folder) async throws -> [String] {
            try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
            let imported = try await Command.run(workout, ["import", "--store", folder.store, "--json", Repository.fixture("gpx/two-runs.gpx").path])
            return imported.outputText.split(separator: "\n").compactMap { line in
                ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["id"] as? String  // a line that is not JSON: none
            }
        }

        /// The two runs imported into `folder`'s store, good credentials for `server`, and neither
        /// run at the server (another test's upload of the same start would be taken for ours).
        static func prepared(
            _ folder: Folder, _ server: FitTrackeeServer
        ) async throws -> (ids: [String], store: WorkoutStore, workouts: [WorkoutRecord], fittrackee: FitTrackeeDestination) {
            let ids = try await imported(in: folder)
            try #require(ids.count == 2)
            try await server.writeCredentials(to: folder.credentials, expiresAt: Date().addingTimeInterval(86_400))
            let store = try WorkoutStore(path: folder.store)
            let workouts = try await store.workouts()
            let fittrackee = try await Stage.Alone.FitTrackeeTests.destination(server)
            for workout in workouts { try await Stage.Alone.FitTrackeeTests.removeAtServer(workout, fittrackee, server) }
            return (ids, store, workouts, fittrackee)
        }

        /// SIGINT while the server holds the request unanswered: the exchange is cancelled, the entry
        /// kept pending (nothing had gone out) with "interrupted", and the command exits 75, as its
        /// help says for an interrupted run.
        @Test func anInterruptedUploadKeepsItsEntryAndExits75() async throws {
            let folder = Folder()
            defer { try? FileManager.default.removeItem(atPath: folder.path) }  // a temporary folder: nothing to keep
            let ids = try await Self.imported(in: folder)
            try #require(ids.count == 2)
            try OAuthCredentials(clientID: "c", clientSecret: "s", accessToken: "a", refreshToken: nil, expiresAt: nil).write(to: folder.credentials)
            let server = try await HTTPRecorder(hold: 1)
            let authority = String(server.url.dropFirst("http://".count))
            let upload = try ChildProcess(Self.workout, [
                "upload", ids[0], "--store", folder.store, "--to", "fittrackee+http://\(authority)", "--credentials", folder.credentials,
            ], blockedSignals: [])
            let held = await server.request(1)
            #expect(held?.path == "/api/config", "asked for the server's largest file first")
            upload.send(signal: SIGINT)
            let status = await upload.waitUntilExit()
            #expect(status == 75, "\(upload.lines(.error))")
            let entries = try await WorkoutStore(path: folder.store).uploads()
            #expect(entries.map(\.state) == [.pending] && entries.first?.lastError?.contains("interrupted") == true, "\(entries)")
            #expect(upload.lines(.error).contains { $0.hasPrefix("workout upload: 1 waiting for fittrackee://\(authority), kept in the queue") })
            await server.stop()
        }

        /// SIGKILL once FitTrackee has kept the upload and before the command heard (a proxy in
        /// front of the real server keeps its answer from the command): the entry is left
        /// `sending`, and the next run asks the server first, finds the workout and sends nothing.
        /// One workout at the server, not two, not none.
        @Test func killedAfterTheServerKeptItTheNextRunFindsItThere() async throws {
            guard let server = Stage.Alone.FitTrackeeTests.server() else { return }
            let folder = Folder()
            defer { try? FileManager.default.removeItem(atPath: folder.path) }  // a temporary folder: nothing to keep
            let (ids, store, workouts, fittrackee) = try await Self.prepared(folder, server)
            let workout = try #require(workouts.first { $0.id.uuidString == ids[0] })

            let proxy = try await HTTPRecorder(forward: server.url, holdAnswerTo: ("POST", "/api/workouts"))
            let target = "fittrackee+http://127.0.0.1:\(proxy.port)"
            let arguments = ["upload", "--store", folder.store, "--to", target, "--credentials", folder.credentials]
            let upload = try ChildProcess(Self.workout, arguments + [ids[0]], blockedSignals: [])
            let held = await proxy.request { $0.held == true }
            #expect(held.map { (200..<300).contains($0.status) } == true, "FitTrackee took it: \(String(describing: held?.status))")
            upload.send(signal: SIGKILL)
            #expect(await upload.waitUntilExit() == 128 + SIGKILL)
            #expect(try await store.uploads().map(\.state) == [.sending], "in doubt")
            #expect(try await Stage.Alone.FitTrackeeTests.atServer(workout, server).count == 1, "the server kept it")

            let port = proxy.port
            await proxy.stop()
            let again = try await HTTPRecorder(port: port, forward: server.url)
            let rerun = try await Command.run(Self.workout, arguments)
            #expect(rerun.status == 0, "\(rerun.error)")
            #expect(try await store.uploads().map(\.state) == [.done])
            #expect(!again.requests.contains { $0.method == "POST" && $0.path == "/api/workouts" }, "nothing sent again: \(again.requests.map(\.path))")
            #expect(try await Stage.Alone.FitTrackeeTests.atServer(workout, server).count == 1, "one workout, not two")
            await again.stop()
            for workout in workouts { try await Stage.Alone.FitTrackeeTests.removeAtServer(workout, fittrackee, server) }
        }

        /// `--watch` sends what is queued, then what is queued later (another process's workout, say),
        /// each said once, and ends with 0 at SIGTERM, as a service is stopped.
        @Test func aWatchSendsWhatComesAndEndsCleanly() async throws {
            guard let server = Stage.Alone.FitTrackeeTests.server() else { return }
            let folder = Folder()
            defer { try? FileManager.default.removeItem(atPath: folder.path) }  // a temporary folder: nothing to keep
            let (ids, store, workouts, fittrackee) = try await Self.prepared(folder, server)
            let first = try #require(workouts.first { $0.id.uuidString == ids[0] })
            try await store.enqueueUpload(of: first.id, to: fittrackee.name)

            let watch = try ChildProcess(Self.workout, [
                "upload", "--watch", "--interval", "1", "--store", folder.store, "--to", "fittrackee+http://\(server.authority)",
                "--credentials", folder.credentials,
            ], blockedSignals: [])
            let uploaded = await watch.waitForLine { $0.hasPrefix("Uploaded \(ids[0]): ") }
            #expect(uploaded != nil, "\(watch.lines(.error))")
            // Queued while it watches: sent at its next look.
            try await store.enqueueUpload(of: try #require(UUID(uuidString: ids[1])), to: fittrackee.name)
            let later = await watch.waitForLine { $0.hasPrefix("Uploaded \(ids[1]): ") }
            #expect(later != nil, "\(watch.lines(.error))")
            watch.send(signal: SIGTERM)
            let status = await watch.waitUntilExit()
            #expect(status == 0, "\(watch.lines(.error))")
            #expect(watch.lines().filter { $0.hasPrefix("Uploaded") }.count == 2, "each said once: \(watch.lines())")
            for workout in workouts {
                #expect(try await Stage.Alone.FitTrackeeTests.atServer(workout, server).count == 1)
                try await Stage.Alone.FitTrackeeTests.removeAtServer(workout, fittrackee, server)
            }
        }
    }
}

extension Stage.Alone.FitTrackeeTests {
    /// `workout login` against the real FitTrackee: the page it prints is allowed as FitTrackee's
    /// own page does it (scripts/fittrackee-server allow), the browser comes back to the command's
    /// loopback redirect URI, and the tokens it writes (0600) upload a workout.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct LoginCommandTests {
        static let script = Repository.root.appendingPathComponent("scripts/fittrackee-server").path

        /// A free loopback port, for an app registered with its redirect URI before the command binds it.
        static func freePort() throws -> Int {
            let listener = try RedirectProbe()
            defer { listener.close() }
            return listener.port
        }

        @Test func aLoginWritesTokensThatUpload() async throws {
            guard let server = Stage.Alone.FitTrackeeTests.server() else { return }
            let folder = UploadCommandTests.Folder()
            defer { try? FileManager.default.removeItem(atPath: folder.path) }  // a temporary folder: nothing to keep
            let ids = try await UploadCommandTests.imported(in: folder)
            try #require(!ids.isEmpty)
            let port = try Self.freePort()
            let app = try await Command.run(Self.script, ["app", server["DIR"], "http://127.0.0.1:\(port)/callback"])
            try #require(app.status == 0, "\(app.error)")
            var client: [String: String] = [:]
            for line in app.outputText.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { client[parts[0]] = parts[1] }
            }
            let secretFile = folder.path + "/client-secret"
            try (client["FITTRACKEE_CLIENT_SECRET"] ?? "").write(toFile: secretFile, atomically: true, encoding: .utf8)

            let login = try ChildProcess(UploadCommandTests.workout, [
                "login", "--to", "fittrackee+http://\(server.authority)", "--client-id", client["FITTRACKEE_CLIENT_ID"] ?? "",
                "--client-secret-file", secretFile, "--credentials", folder.credentials, "--port", String(port),
            ], blockedSignals: [])
            let page = try #require(await login.waitForLine(unfinished: false) { $0.contains("/profile/apps/authorize?") })
            #expect(page.hasPrefix(server.url + "/profile/apps/authorize?"), "the page on the server, alone on its line")
            let allowed = try await Command.run(Self.script, ["allow", server["DIR"], page])
            #expect(allowed.status == 0 && allowed.outputText.trimmingCharacters(in: .whitespacesAndNewlines) == "200", "\(allowed.error)")
            #expect(await login.waitUntilExit() == 0, "\(login.lines(.error))")
            #expect(login.lines(.error).last?.hasPrefix("Logged in: the tokens are in \(folder.credentials) (0600)") == true, "\(login.lines(.error))")

            let attributes = try FileManager.default.attributesOfItem(atPath: folder.credentials)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let tokens = try OAuthCredentials.read(from: folder.credentials)
            #expect(tokens.clientID == client["FITTRACKEE_CLIENT_ID"] && tokens.refreshToken != nil)
            #expect(tokens.expiresAt.map { $0 > Date().addingTimeInterval(86_400) } == true, "FitTrackee's tokens last 10 days")

            let fittrackee = try await Stage.Alone.FitTrackeeTests.destination(server)
            let store = try WorkoutStore(path: folder.store)
            let first = try #require(try await store.workouts().first { $0.id.uuidString == ids[0] })
            try await Stage.Alone.FitTrackeeTests.removeAtServer(first, fittrackee, server)
            let upload = try await Command.run(UploadCommandTests.workout, [
                "upload", ids[0], "--store", folder.store, "--to", "fittrackee+http://\(server.authority)", "--credentials", folder.credentials,
            ])
            #expect(upload.status == 0, "\(upload.error)")
            #expect(try await store.uploads().map(\.state) == [.done])
        }

        /// `workout login` of client `c` at `destination` (where nothing listens), on a free port,
        /// started in `folder`; and the redirect URI it waits at, from its line.
        static func waitingLogin(to destination: String, in folder: UploadCommandTests.Folder) async throws -> (ChildProcess, String) {
            try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
            let secretFile = folder.path + "/client-secret"
            try "secret\n".write(toFile: secretFile, atomically: true, encoding: .utf8)
            let login = try ChildProcess(UploadCommandTests.workout, [
                "login", "--to", destination, "--client-id", "c", "--client-secret-file", secretFile,
                "--credentials", folder.credentials, "--port", "0",
            ], blockedSignals: [])
            let waiting = try #require(await login.waitForLine(on: .error, unfinished: false) { $0.hasPrefix("Waiting for the browser at ") })
            return (login, String(waiting.dropFirst("Waiting for the browser at ".count).prefix { $0 != " " }))
        }

        /// The browser's answer when the user refuses ("Cancel" on FitTrackee's page sends none; a
        /// server that says access_denied is OAuth's refusal): 77, nothing written.
        @Test func aRefusalIsSaidAndWritesNothing() async throws {
            let folder = UploadCommandTests.Folder()
            defer { try? FileManager.default.removeItem(atPath: folder.path) }  // a temporary folder: nothing to keep
            let (login, redirect) = try await Self.waitingLogin(to: "fittrackee+http://127.0.0.1:9", in: folder)
            let browser = try await Command.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", redirect + "?error=access_denied&state=x"])
            #expect(browser.outputText == "200")
            #expect(await login.waitUntilExit() == 77)
            #expect(login.lines(.error).last?.contains("did not allow the client c (access_denied)") == true, "\(login.lines(.error))")
            #expect(!FileManager.default.fileExists(atPath: folder.credentials))
        }

        /// SIGINT while it waits for the browser: 75, as its help says, nothing written.
        @Test func ctrlCWhileWaitingEnds75() async throws {
            let folder = UploadCommandTests.Folder()
            defer { try? FileManager.default.removeItem(atPath: folder.path) }  // a temporary folder: nothing to keep
            let (login, _) = try await Self.waitingLogin(to: "strava+http://127.0.0.1:9", in: folder)
            login.send(signal: SIGINT)
            #expect(await login.waitUntilExit() == 75)
            #expect(login.lines(.error).last?.hasSuffix("(interrupted); nothing written") == true, "\(login.lines(.error))")
            #expect(!FileManager.default.fileExists(atPath: folder.credentials))
        }
    }
}

/// A port the kernel gives free on 127.0.0.1, released at once (the test registers its redirect URI first).
struct RedirectProbe {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { Glibc.close(descriptor) }
}
