import Foundation
@testable import LocationPublisher
import TestSupport
import Testing

/// HTTPDestination against Python's http.server (Tests/Tools/http-recorder.py): what each POST
/// carries, what each answer means, and that a timeout or a cancellation ends the POST on time.
@Suite(.tags(.childProcess))
struct HTTPDestinationTests {
    static let message = PositionMessage(
        id: 1, time: Date(timeIntervalSince1970: 1_700_000_000), latitude: 51.4779, longitude: -0.0015, altitude: 45,
        horizontalAccuracy: 4, speed: 10, course: 90, battery: 80, createdAt: Date(timeIntervalSince1970: 1_700_000_002))

    @Test func ownTracksPostsTheJSONWithTheLimitHeadersAndTheLogin() async throws {
        let server = try await HTTPRecorder()
        let destination = HTTPDestination(
            url: server.url + "/pub", format: .ownTracks(user: "alice", device: "van", trackerID: "AV"),
            login: HTTPLogin(user: "alice", password: "s3cret"))
        try await destination.deliver(Self.message)
        let request = try #require(await server.request(1))
        #expect(request.method == "POST")
        #expect(request.path == "/pub")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["x-limit-u"] == "alice")
        #expect(request.headers["x-limit-d"] == "van")
        #expect(request.headers["authorization"] == "Basic " + Data("alice:s3cret".utf8).base64EncodedString())
        #expect(request.body == String(decoding: OwnTracksPayload(trackerID: "AV").render(Self.message), as: UTF8.self))
        #expect(destination.name == server.url + "/pub")
    }

    @Test func osmAndPostsThePositionAsQueryItems() async throws {
        let server = try await HTTPRecorder()
        let destination = HTTPDestination(url: server.url + "/", format: .osmAnd(deviceID: "van-7"))
        try await destination.deliver(Self.message)
        let request = try #require(await server.request(1))
        #expect(request.method == "POST")
        #expect(request.path == "/")
        #expect(request.query == OsmAndPayload(deviceID: "van-7").query(Self.message))
        let items = request.queryItems
        #expect(items["id"] == "van-7")
        #expect(items["lat"] == "51.4779")
        #expect(items["lon"] == "-0.0015")
        #expect(items["timestamp"] == "1700000000")
        #expect(items["batt"] == "80")
        #expect(request.body.isEmpty)
    }

    /// Each status in turn, and what deliver(_:) makes of it.
    @Test func eachAnswerDecidesTheMessagesFate() async throws {
        enum Fate: Equatable { case delivered, refused, unreachable, rejected }
        let cases: [(Int, Fate)] = [
            (200, .delivered), (204, .delivered), (401, .refused), (403, .refused), (408, .unreachable), (429, .unreachable),
            (500, .unreachable), (503, .unreachable), (400, .rejected), (404, .rejected), (413, .rejected), (301, .rejected),
        ]
        let server = try await HTTPRecorder(statuses: cases.map(\.0))
        let destination = HTTPDestination(url: server.url, format: .osmAnd(deviceID: "van-7"))
        for (status, expected) in cases {
            var fate = Fate.delivered
            do {
                try await destination.deliver(Self.message)
            } catch let error as PublishError {
                switch error {
                case .refusedCredentials: fate = .refused
                case .unreachable: fate = .unreachable
                case .rejected: fate = .rejected
                case .tlsFailure: Issue.record("HTTP \(status) taken for a TLS failure: \(error)")
                }
                #expect(error.description.contains("HTTP \(status)"), "\(error)")
                #expect(error.destination == destination.name)
            }
            #expect(fate == expected, "HTTP \(status)")
        }
        _ = await server.request(cases.count)  // its line is read: the server writes it before answering
        #expect(server.requests.map(\.status) == cases.map(\.0))
    }

    @Test func aServerThatIsNotThereIsUnreachable() async throws {
        let server = try await HTTPRecorder()
        let url = server.url
        await server.stop()
        let destination = HTTPDestination(url: url, format: .ownTracks(user: "alice", device: "van", trackerID: nil))
        let error = await #expect(throws: PublishError.self) { try await destination.deliver(Self.message) }
        guard case let .unreachable(name, reason) = error else {
            Issue.record("expected unreachable, got \(String(describing: error))")
            return
        }
        #expect(name == url)
        #expect(reason.contains("connect"), "\(reason)")
    }

    /// A server that never answers: the POST ends at its timeout (on libcurl's clock, a real one),
    /// and the message stays queued. The bound is generous for a loaded two-core machine.
    @Test func aServerThatNeverAnswersTimesOutOnTime() async throws {
        let server = try await HTTPRecorder(hold: 1)
        let destination = HTTPDestination(url: server.url, format: .osmAnd(deviceID: "van-7"), timeout: .milliseconds(300))
        let start = ContinuousClock.now
        let error = await #expect(throws: PublishError.self) { try await destination.deliver(Self.message) }
        let elapsed = ContinuousClock.now - start
        #expect(error?.isTransient == true, "\(String(describing: error))")
        #expect(error?.description.contains("Timeout") == true, "\(String(describing: error))")
        #expect(elapsed >= .milliseconds(300))
        #expect(elapsed < .seconds(10))
    }

    /// A cancelled POST returns at once with CancellationError, and the destination goes on working.
    @Test func cancellingADeliveryAbandonsItsPost() async throws {
        let server = try await HTTPRecorder(hold: 1)
        let destination = HTTPDestination(url: server.url, format: .osmAnd(deviceID: "van-7"))
        let delivery = Task { try await destination.deliver(Self.message) }
        _ = try #require(await server.request(1))
        delivery.cancel()
        await #expect(throws: CancellationError.self) { try await delivery.value }
        try await destination.deliver(Self.message)
        #expect(try #require(await server.request(2)).status == 200)
    }

    /// Many POSTs at once go out side by side on the one thread, each answered.
    @Test func concurrentDeliveriesAllArrive() async throws {
        let server = try await HTTPRecorder()
        let destination = HTTPDestination(url: server.url, format: .osmAnd(deviceID: "van-7"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in 1...40 {
                group.addTask {
                    var message = Self.message
                    message.id = Int64(id)
                    message.time = Date(timeIntervalSince1970: 1_700_000_000 + Double(id))
                    try await destination.deliver(message)
                }
            }
            try await group.waitForAll()
        }
        _ = await server.request(40)
        #expect(Set(server.requests.compactMap { $0.queryItems["timestamp"] }) == Set((1...40).map { "\(1_700_000_000 + $0)" }))
    }

    /// A certificate no authority we trust signed: the error names the problem as OpenSSL put
    /// it; given that certificate as the CA file, the same server takes the POST.
    @Test(.disabled(if: !Repository.hasProgram("openssl"), "needs openssl to make a certificate"))
    func tlsNamesTheCertificateProblem() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("http-tls-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let certificate = folder.appendingPathComponent("server.pem").path
        let key = folder.appendingPathComponent("server.key").path
        let made = try await Command.run("openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
        ])
        try #require(made.status == 0, "\(made.error)")
        let server = try await HTTPRecorder(tls: (certificate, key))
        let untrusted = HTTPDestination(url: server.url, format: .osmAnd(deviceID: "van-7"))
        let error = await #expect(throws: PublishError.self) { try await untrusted.deliver(Self.message) }
        guard case let .tlsFailure(_, problem) = error else {
            Issue.record("expected a TLS failure, got \(String(describing: error))")
            return
        }
        #expect(problem.contains("self-signed certificate"), "\(problem)")
        let trusting = HTTPDestination(url: server.url, format: .osmAnd(deviceID: "van-7"), tls: HTTPTLSFiles(caFile: certificate))
        try await trusting.deliver(Self.message)
        #expect(try #require(await server.request(1)).status == 200)
    }

    @Test func theNameHidesTheUserAndTheQuery() {
        #expect(HTTPDestination.displayName(of: "https://alice@example.org:8443/pub?x=1#f") == "https://example.org:8443/pub")
        #expect(HTTPDestination.displayName(of: "http://example.org") == "http://example.org")
    }
}
