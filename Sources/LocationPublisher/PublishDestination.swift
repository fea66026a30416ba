/// Where positions go: an MQTT broker (``MQTTDestination``), an HTTP server, or a test's fake.
///
/// ``LocationPublisher`` calls ``deliver(contentsOf:)`` with a batch of queued messages per
/// destination (by default it calls ``deliver(_:)`` for one message after another), and removes a
/// message from its ``Outbox`` only once it was acknowledged.
///
/// ```swift
/// struct PrintingDestination: PublishDestination {
///     var name: String { "stdout" }
///     func deliver(_ message: PositionMessage) async throws {
///         print(String(decoding: OwnTracksPayload().render(message), as: UTF8.self))
///     }
/// }
/// ```
public protocol PublishDestination: Sendable {
    /// A short name for logs, status and the outbox: `mqtt://broker.example:8883`. Two
    /// destinations of one publisher must have different names.
    var name: String { get }

    /// Sends `message` and returns once the destination acknowledged it (an MQTT PUBACK at QoS 1;
    /// an HTTP 2xx).
    ///
    /// - Throws: a ``PublishError`` saying whether to try again (``PublishError/unreachable(destination:reason:)``),
    ///   give up on the message (``PublishError/rejected(destination:reason:)``), or fix the
    ///   configuration (credentials, TLS). Any other error counts as ``PublishError/unreachable(destination:reason:)``.
    func deliver(_ message: PositionMessage) async throws

    /// Sends `messages` in their order, several at a time where the destination can, and returns
    /// what became of each, in the same order: success once the destination acknowledged it, or
    /// the error ``deliver(_:)`` would have thrown. The result may be shorter than `messages`:
    /// those left out were not sent (after a failure that is not a rejection) and stay queued.
    ///
    /// ``LocationPublisher`` calls it with a batch read from the outbox (or the live positions
    /// appended since the last batch) and removes the acknowledged ones in one commit. The default
    /// sends one at a time with ``deliver(_:)``.
    func deliver(contentsOf messages: [PositionMessage]) async -> [Result<Void, any Error>]
}

extension PublishDestination {
    /// One at a time, with ``deliver(_:)``, up to the first failure that is not a rejection.
    public func deliver(contentsOf messages: [PositionMessage]) async -> [Result<Void, any Error>] {
        var results: [Result<Void, any Error>] = []
        results.reserveCapacity(messages.count)
        for message in messages {
            do {
                try await deliver(message)
                results.append(.success(()))
            } catch {
                results.append(.failure(error))
                if case .rejected = error as? PublishError { continue }
                break
            }
        }
        return results
    }
}

/// Why a destination did not take a message.
public enum PublishError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The destination could not be reached, or did not answer in time: the message stays queued
    /// and is sent again after a backoff.
    case unreachable(destination: String, reason: String)
    /// The destination refused the credentials (MQTT CONNACK "bad user name or password" or "not
    /// authorized"; HTTP 401 or 403). Retrying will not help until the configuration changes;
    /// `locate publish` exits 77.
    case refusedCredentials(destination: String, reason: String)
    /// The TLS handshake failed; `problem` names the certificate problem as OpenSSL reported it
    /// ("certificate verify failed", "unable to get local issuer certificate").
    case tlsFailure(destination: String, problem: String)
    /// The destination answered, but refused this message (an HTTP 4xx other than 401, 403, 408
    /// and 429; an MQTT v5 PUBACK with a failure reason): it is dropped and counted, since sending
    /// it again gets the same answer.
    case rejected(destination: String, reason: String)

    /// The destination's name.
    public var destination: String {
        switch self {
        case let .unreachable(destination, _), let .refusedCredentials(destination, _),
             let .tlsFailure(destination, _), let .rejected(destination, _):
            destination
        }
    }

    /// Whether sending again later may succeed without a change of configuration.
    public var isTransient: Bool {
        if case .unreachable = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case let .unreachable(destination, reason):
            "\(destination) cannot be reached (\(reason)); positions stay queued and are sent when it can"
        case let .refusedCredentials(destination, reason):
            "\(destination) refused the credentials (\(reason)); check the user name and password"
        case let .tlsFailure(destination, problem):
            "the TLS connection to \(destination) failed: \(problem); check the CA file and the server's certificate"
        case let .rejected(destination, reason):
            "\(destination) rejected a position (\(reason)); it was dropped"
        }
    }
}
