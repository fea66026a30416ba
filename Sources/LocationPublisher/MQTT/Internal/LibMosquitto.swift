import CMosquitto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import GPSCore
import LocationCore
import Logging

/// `mosquitto_lib_init(3)`, once per process, before the first client is made (Swift runs a
/// global's initializer once, thread-safely).
private let libraryInitialized: Int32 = mosquitto_lib_init()

/// One libmosquitto client and the thread that runs it: connects, runs `mosquitto_loop(3)`,
/// reconnects with a backoff, and completes each publish when its PUBACK arrives.
///
/// libmosquitto calls back on this thread (`on_connect`, `on_disconnect`, `on_publish`, `on_log`)
/// with `obj`, an unretained pointer to this object: the thread holds the object for as long as the
/// client exists (it destroys the client before it lets go). Other threads call only
/// `mosquitto_publish(3)`, which writes the packet to the socket on the calling thread (under
/// libmosquitto's own locks of its outgoing packets, which it takes whatever the threading mode):
/// a live position then wakes this thread once, for its PUBACK, not also to write it. The client
/// is therefore not in `mosquitto_threaded_set(3)`'s threaded mode, which only queues the packet
/// and leaves the write to this thread; what a publish could not write at once (a full socket
/// buffer) this thread writes when woken.
///
/// Each batch of publishes is a one-shot state machine: its message ids are registered after
/// `mosquitto_publish` returned them all, each `on_publish` records its PUBACK, and the last one
/// completes the batch (libmosquitto keeps up to 20 in flight and queues the rest). A PUBACK that
/// comes before the registration is kept (``State/earlyAcks``), and one for a publish that was
/// given up on (timed out, cancelled, failed by a disconnection) is ignored (``State/abandoned``).
/// Each continuation is taken out of the state under the lock and resumed once, outside it.
final class MosquittoClient: Sendable {
    struct Settings: Sendable {
        var name: String
        var host: String
        var port: Int32
        var clientID: String
        var cleanSession: Bool
        var protocolVersion: MQTTDestination.ProtocolVersion
        var sessionExpiry: UInt32
        var keepAlive: Int32
        var username: String?
        var password: String?
        var tls: MQTTDestination.TLS?
        var will: (topic: String, payload: [UInt8], retain: Bool)?
        /// Published (QoS 1) after each connection: Home Assistant's retained discovery.
        var onConnect: [(topic: String, payload: [UInt8], retain: Bool)]
        var reconnect: Backoff
        var acknowledgementTimeout: Duration
    }

    enum Link: Sendable, Equatable {
        /// Connecting for the first time, or again after `failures` failures.
        case connecting
        case connected
        /// The last attempt failed, or the connection was lost; the next one comes after a backoff.
        case down(PublishError)
        case closed
    }

    /// What became of a batch: each acknowledged id's PUBACK reason code, and why the others
    /// were given up on.
    fileprivate struct Outcome: Sendable {
        var reasons: [Int32: Int32] = [:]
        var failure: (any Error)?
    }

    /// Publishes waiting for their PUBACKs.
    fileprivate struct Pending: Sendable {
        var continuation: CheckedContinuation<Outcome, Never>
        var mids: [Int32]
        var outcome: Outcome
        var deadline: ContinuousClock.Instant
    }

    fileprivate struct State: Sendable {
        var link: Link = .connecting
        /// Why the last attempt failed, until one succeeds: what a publish throws while the client
        /// tries again (with a short backoff the next attempt may have begun by the time a
        /// publisher woken by the failure looks).
        var lastFailure: PublishError?
        var stopping = false
        /// The batches waiting, by their number.
        var acks: [UInt64: Pending] = [:]
        /// The batch of each message id waiting for its PUBACK.
        var batchOf: [Int32: UInt64] = [:]
        var nextBatch: UInt64 = 0
        var earlyAcks: [Int32: Int32] = [:]
        var abandoned: Set<Int32> = []
        /// Those waiting for the first attempt to end.
        var linkWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0
        /// The CONNACK's refusal, set by `on_connect`.
        var refusal: Int32?
        /// libmosquitto's last warning or error (OpenSSL's reason for a failed handshake).
        var lastLog: String?
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
        var exited = false
    }

    let settings: Settings
    private let logger: Logger
    private let state = Locked(State())
    private let wake = WakeSignal()
    /// The client. Only this object's thread uses it, but for `mosquitto_publish(3)` (its packet
    /// locks make it safe from any thread) and `mosquitto_disconnect(3)`.
    nonisolated(unsafe) private let handle: OpaquePointer

    init(settings: Settings, logger: Logger) throws(PublishError) {
        precondition(libraryInitialized == MOSQ_ERR_SUCCESS.rawValue, "mosquitto_lib_init failed")
        self.settings = settings
        self.logger = logger
        guard let handle = mosquitto_new(settings.clientID, settings.cleanSession, nil) else {
            throw .unreachable(destination: settings.name, reason: "mosquitto_new failed: \(String(cString: strerror(errno)))")
        }
        self.handle = handle
        do throws(PublishError) {
            try configure()
        } catch {
            mosquitto_destroy(handle)
            throw error
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        mosquitto_user_data_set(handle, context)
        Threads.detach { [self] in run() }
    }

    /// Options, credentials, TLS, the will and the callbacks, before the first connection.
    private func configure() throws(PublishError) {
        func check(_ rc: Int32, _ call: String) throws(PublishError) {
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                let text = String(cString: mosquitto_strerror(rc))
                if call.hasPrefix("mosquitto_tls") { throw .tlsFailure(destination: settings.name, problem: "\(call): \(text)") }
                throw .unreachable(destination: settings.name, reason: "\(call): \(text)")
            }
        }
        try check(mosquitto_threaded_set(handle, false), "mosquitto_threaded_set")
        let version = settings.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, version), "mosquitto_int_option")
        // A batch is several small writes in a row: with Nagle's algorithm each after the first
        // waits for the broker's delayed ACK (40 ms on Linux), and a 10,000 drain took 22 s.
        try check(mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1), "mosquitto_int_option")
        if settings.username != nil || settings.password != nil {
            try check(mosquitto_username_pw_set(handle, settings.username, settings.password), "mosquitto_username_pw_set")
        }
        if let tls = settings.tls {
            try check(mosquitto_tls_set(handle, tls.caFile, tls.caPath, tls.certificateFile, tls.keyFile, nil), "mosquitto_tls_set")
            if !tls.verifiesHostname { try check(mosquitto_tls_insecure_set(handle, true), "mosquitto_tls_insecure_set") }
        }
        if let will = settings.will {
            try check(
                will.payload.withUnsafeBytes { mosquitto_will_set(handle, will.topic, Int32($0.count), $0.baseAddress, 1, will.retain) },
                "mosquitto_will_set")
        }
        mosquitto_connect_callback_set(handle) { _, context, code in
            MosquittoClient.from(context).connected(code)
        }
        mosquitto_disconnect_callback_set(handle) { _, context, code in
            MosquittoClient.from(context).disconnected(code)
        }
        mosquitto_publish_v5_callback_set(handle) { _, context, mid, reason, _ in
            MosquittoClient.from(context).acknowledged(mid, reason: reason)
        }
        mosquitto_log_callback_set(handle) { _, context, level, text in
            guard level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0, let text else { return }
            MosquittoClient.from(context).logged(String(cString: text))
        }
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> MosquittoClient {
        Unmanaged<MosquittoClient>.fromOpaque(context!).takeUnretainedValue()
    }

    // MARK: - The thread

    /// Connects, loops, and reconnects after a backoff, until ``stop()``; then disconnects (the
    /// broker does not publish the will) and destroys the client.
    private func run() {
        var failures = 0
        while !state.withLock({ $0.stopping }) {
            state.withLock { state in
                state.refusal = nil
                state.lastLog = nil
            }
            var code = connect()
            if code == MOSQ_ERR_SUCCESS.rawValue {
                code = loop()
                if state.withLock({ $0.link == .connected }) { failures = 0 }
            }
            if state.withLock({ $0.stopping }) { break }
            failures += 1
            let failure = classify(code)
            goDown(failure)
            let delay = settings.reconnect.delay(afterFailures: failures)
            logger.debug("MQTT connection down; reconnecting after a backoff", metadata: [
                "mqtt.destination": "\(settings.name)", "error": "\(failure)", "mqtt.retry_in": "\(delay)",
            ])
            wait(delay)
        }
        if state.withLock({ $0.link == .connected }) {
            mosquitto_disconnect(handle)
            // Write out what the DISCONNECT left queued (a full socket buffer).
            for _ in 0..<10 where mosquitto_want_write(handle) && mosquitto_loop_write(handle, 1) == MOSQ_ERR_SUCCESS.rawValue {}
        }
        goDown(nil)
        mosquitto_destroy(handle)
        let waiters = state.withLock { state in
            state.exited = true
            defer { state.exitWaiters = [] }
            return state.exitWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// `mosquitto_connect_bind_v5(3)`: TCP (and TLS) connect and CONNECT sent; the CONNACK comes
    /// to `on_connect` through the loop. For MQTT 5 the session expiry goes in the CONNECT's
    /// properties, so that the broker keeps a persistent session after the connection ends.
    private func connect() -> Int32 {
        setLink(.connecting)
        var properties: OpaquePointer? = nil
        defer { mosquitto_property_free_all(&properties) }
        if settings.protocolVersion == .v5 && !settings.cleanSession {
            _ = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), settings.sessionExpiry)
        }
        return mosquitto_connect_bind_v5(handle, settings.host, settings.port, settings.keepAlive, nil, properties)
    }

    /// Reads, writes and keeps the connection alive until it fails or ``stop()``: libmosquitto's
    /// external-loop calls (`mosquitto_loop_read(3)`, `mosquitto_loop_write(3)`,
    /// `mosquitto_loop_misc(3)`) around poll(2) on its socket and ``wake``.
    ///
    /// Not `mosquitto_loop(3)`: it waits with select(2), which cannot watch a descriptor numbered
    /// 1024 or more, and a process with 200 clients has such descriptors (200 publishers in one
    /// process lost the last few clients' messages that way).
    private func loop() -> Int32 {
        while !state.withLock({ $0.stopping }) {
            let socket = mosquitto_socket(handle)
            guard socket >= 0 else { return MOSQ_ERR_NO_CONN.rawValue }
            var events = Int16(POLLIN)
            if mosquitto_want_write(handle) { events |= Int16(POLLOUT) }
            var descriptors = [
                pollfd(fd: socket, events: events, revents: 0),
                pollfd(fd: wake.fileDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, 1000)
            if ready < 0 && errno != EINTR { return MOSQ_ERR_ERRNO.rawValue }
            if descriptors[1].revents != 0 { wake.drain() }
            let revents = descriptors[0].revents
            if revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
                let code = mosquitto_loop_read(handle, 1)
                if code != MOSQ_ERR_SUCCESS.rawValue { return code }
                // ACK what was read at once (Linux turns quick ACKs off again after a while): a
                // broker with Nagle's algorithm on (mosquitto's default) holds a batch's later
                // PUBACKs until the first is ACKed, and a delayed ACK made that 40 ms per batch.
                var on: Int32 = 1
                _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_QUICKACK, &on, socklen_t(MemoryLayout<Int32>.size))
            }
            if mosquitto_want_write(handle) {
                let code = mosquitto_loop_write(handle, 1)
                if code != MOSQ_ERR_SUCCESS.rawValue { return code }
            }
            let code = mosquitto_loop_misc(handle)
            if code != MOSQ_ERR_SUCCESS.rawValue { return code }
            expireAcknowledgements()
        }
        return MOSQ_ERR_SUCCESS.rawValue
    }

    /// Waits `delay` (real time: a network's reconnection), or until ``stop()``.
    private func wait(_ delay: Duration) {
        let (seconds, attoseconds) = delay.components
        var descriptor = pollfd(fd: wake.fileDescriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        _ = poll(&descriptor, 1, max(milliseconds, 1))
        wake.drain()
    }

    /// The error that `code` (a libmosquitto result) means, with what libmosquitto logged.
    private func classify(_ code: Int32) -> PublishError {
        let (refusal, log) = state.withLock { ($0.refusal, $0.lastLog) }
        let name = settings.name
        if let refusal, refusal != 0 {
            let text = settings.protocolVersion == .v5
                ? String(cString: mosquitto_reason_string(refusal)) : String(cString: mosquitto_connack_string(refusal))
            // 3.1.1: 4 bad user name or password, 5 not authorized; 5: 134 and 135, the same.
            if [4, 5, Int32(MQTT_RC_BAD_USERNAME_OR_PASSWORD.rawValue), Int32(MQTT_RC_NOT_AUTHORIZED.rawValue)].contains(refusal) {
                return .refusedCredentials(destination: name, reason: text)
            }
            return .unreachable(destination: name, reason: "the broker refused the connection: \(text)")
        }
        if code == MOSQ_ERR_TLS.rawValue || (log?.contains("OpenSSL") ?? false) {
            return .tlsFailure(destination: name, problem: log.map(Self.sslReason) ?? "the TLS handshake failed")
        }
        if code == MOSQ_ERR_ERRNO.rawValue {
            return .unreachable(destination: name, reason: String(cString: strerror(errno)))
        }
        return .unreachable(destination: name, reason: String(cString: mosquitto_strerror(code)))
    }

    /// `OpenSSL Error[0]: error:0A000086:SSL routines::certificate verify failed` → `certificate
    /// verify failed` (with the rest kept when it is not of that shape).
    private static func sslReason(_ line: String) -> String {
        if let range = line.range(of: "::", options: .backwards) { return String(line[range.upperBound...]) }
        if let colon = line.range(of: ":", options: .backwards) { return String(line[colon.upperBound...]).trimmingCharacters(in: .whitespaces) }
        return line
    }

    // MARK: - Callbacks (on the thread)

    private func connected(_ code: Int32) {
        guard code == 0 else {
            state.withLock { $0.refusal = code }
            return
        }
        setLink(.connected)
        logger.debug("MQTT connected", metadata: ["mqtt.destination": "\(settings.name)"])
        for message in settings.onConnect {
            var mid: Int32 = 0
            let code = message.payload.withUnsafeBytes {
                mosquitto_publish(handle, &mid, message.topic, Int32($0.count), $0.baseAddress, 1, message.retain)
            }
            if code == MOSQ_ERR_SUCCESS.rawValue { state.withLock { _ = $0.abandoned.insert(mid) } }
        }
    }

    private func disconnected(_ code: Int32) {
        // The loop returns an error next; run() takes the link down with the reason.
    }

    private func acknowledged(_ mid: Int32, reason: Int32) {
        let done = state.withLock { state -> Pending? in
            if state.abandoned.remove(mid) != nil { return nil }
            guard let batch = state.batchOf.removeValue(forKey: mid) else {
                state.earlyAcks[mid] = reason
                return nil
            }
            state.acks[batch]?.outcome.reasons[mid] = reason
            guard let pending = state.acks[batch], pending.outcome.reasons.count == pending.mids.count else { return nil }
            state.acks[batch] = nil
            return pending
        }
        if let done { done.continuation.resume(returning: done.outcome) }
    }

    private func logged(_ line: String) {
        state.withLock { $0.lastLog = line }
    }

    // MARK: - State changes

    private func setLink(_ link: Link) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.link != .closed else { return [] }
            state.link = link
            if link == .connected { state.lastFailure = nil }
            guard link != .connecting else { return [] }
            defer { state.linkWaiters = [:] }
            return Array(state.linkWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Takes the link down (closed when `failure` is nil) and fails every publish waiting for a PUBACK.
    private func goDown(_ failure: PublishError?) {
        let error: PublishError = failure ?? .unreachable(destination: settings.name, reason: "the connection was closed")
        let (pending, waiters) = state.withLock { state in
            state.link = failure.map { .down($0) } ?? .closed
            if let failure { state.lastFailure = failure }
            state.abandoned.formUnion(state.batchOf.keys)
            state.earlyAcks = [:]
            defer {
                state.acks = [:]
                state.batchOf = [:]
                state.linkWaiters = [:]
            }
            return (Array(state.acks.values), Array(state.linkWaiters.values))
        }
        for waiter in waiters { waiter.resume() }
        for item in pending {
            var outcome = item.outcome
            outcome.failure = error
            item.continuation.resume(returning: outcome)
        }
    }

    /// Fails the publishes whose PUBACK is later than the timeout.
    private func expireAcknowledgements() {
        let now = ContinuousClock.now
        let expired = state.withLock { state -> [Pending] in
            guard !state.acks.isEmpty else { return [] }
            let late = state.acks.filter { $0.value.deadline <= now }
            for (batch, pending) in late {
                state.acks[batch] = nil
                state.abandon(pending)
            }
            return Array(late.values)
        }
        for item in expired {
            var outcome = item.outcome
            outcome.failure = PublishError.unreachable(destination: settings.name, reason: "no PUBACK within \(settings.acknowledgementTimeout)")
            item.continuation.resume(returning: outcome)
        }
    }

    // MARK: - Publishing (any thread)

    var link: Link {
        state.withLock { $0.link }
    }

    /// Publishes `payload` to `topic` at QoS 1 and returns when the broker acknowledged it.
    ///
    /// - Throws: ``PublishError`` — the link's error when it is down (at once: the caller's
    ///   outbox keeps the message), `rejected` for an MQTT 5 PUBACK with a failure reason,
    ///   `unreachable` when the connection went down before the PUBACK or it did not come in time;
    ///   `CancellationError` when the task is cancelled (the PUBACK, if it comes, is ignored).
    func publish(topic: String, payload: [UInt8], retain: Bool) async throws {
        if let result = await publish([(topic, payload, retain)]).first {
            try result.get()
        }
    }

    /// Publishes each of `messages` at QoS 1, in order, waking the thread once, and returns when
    /// the broker acknowledged them all (libmosquitto keeps up to 20 in flight), or gave up.
    ///
    /// - Returns: each message's result, as ``publish(topic:payload:retain:)`` would throw; shorter
    ///   than `messages` when `mosquitto_publish(3)` refused one (the rest were not published).
    func publish(_ messages: [(topic: String, payload: [UInt8], retain: Bool)]) async -> [Result<Void, any Error>] {
        do {
            try await waitForFirstAttempt()
            let (link, lastFailure) = state.withLock { ($0.link, $0.lastFailure) }
            switch link {
            case .connected: break
            case let .down(error): throw error
            // Reconnecting after a failure (the first attempt's, when this task was slow to
            // look): that failure is the reason, a TLS or login problem named as such.
            case .connecting: throw lastFailure ?? PublishError.unreachable(destination: settings.name, reason: "still connecting")
            case .closed: throw PublishError.unreachable(destination: settings.name, reason: "the connection was closed")
            }
        } catch {
            return messages.isEmpty ? [] : [.failure(error)]
        }
        var mids: [Int32] = []
        mids.reserveCapacity(messages.count)
        var refused: PublishError?
        for message in messages {
            var published: Int32 = 0
            let code = message.payload.withUnsafeBytes {
                mosquitto_publish(handle, &published, message.topic, Int32($0.count), $0.baseAddress, 1, message.retain)
            }
            guard code == MOSQ_ERR_SUCCESS.rawValue else {
                refused = PublishError.unreachable(destination: settings.name, reason: "mosquitto_publish: \(String(cString: mosquitto_strerror(code)))")
                break
            }
            mids.append(published)
        }
        var results: [Result<Void, any Error>] = []
        if !mids.isEmpty {
            // The packets went out on this thread; what did not fit in the socket's buffer, or was
            // published while this client's thread was in a callback, is queued: the loop writes
            // it once woken.
            if mosquitto_want_write(handle) { wake.signal() }
            let outcome = await acknowledgements(of: mids)
            for mid in mids {
                if let reason = outcome.reasons[mid] {
                    results.append(reason >= 0x80
                        ? .failure(PublishError.rejected(
                            destination: settings.name, reason: "PUBACK \(reason): \(String(cString: mosquitto_reason_string(reason)))"))
                        : .success(()))
                } else {
                    results.append(.failure(outcome.failure ?? PublishError.unreachable(destination: settings.name, reason: "no PUBACK")))
                }
            }
        }
        if let refused { results.append(.failure(refused)) }
        return results
    }

    /// Waits for the PUBACKs of `mids` (published), until the timeout, a disconnection or cancellation.
    private func acknowledgements(of mids: [Int32]) async -> Outcome {
        let deadline = ContinuousClock.now + settings.acknowledgementTimeout
        let batch = state.withLock { state in
            state.nextBatch += 1
            return state.nextBatch
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let outcome = state.withLock { state -> Outcome? in
                    var pending = Pending(continuation: continuation, mids: mids, outcome: Outcome(), deadline: deadline)
                    for mid in mids {
                        if let reason = state.earlyAcks.removeValue(forKey: mid) { pending.outcome.reasons[mid] = reason }
                    }
                    if pending.outcome.reasons.count == mids.count { return pending.outcome }
                    if Task.isCancelled {
                        state.abandon(pending)
                        pending.outcome.failure = CancellationError()
                        return pending.outcome
                    }
                    if case let .down(error) = state.link {
                        state.abandon(pending)
                        pending.outcome.failure = error
                        return pending.outcome
                    }
                    for mid in mids where pending.outcome.reasons[mid] == nil { state.batchOf[mid] = batch }
                    state.acks[batch] = pending
                    return nil
                }
                if let outcome { continuation.resume(returning: outcome) }
            }
        } onCancel: {
            let pending = state.withLock { state -> Pending? in
                guard let pending = state.acks.removeValue(forKey: batch) else { return nil }
                state.abandon(pending)
                return pending
            }
            if let pending {
                var outcome = pending.outcome
                outcome.failure = CancellationError()
                pending.continuation.resume(returning: outcome)
            }
        }
    }

    /// Returns once the first connection attempt has ended (at once after it).
    private func waitForFirstAttempt() async throws {
        guard link == .connecting else { return }
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.link != .connecting || Task.isCancelled { return true }
                    state.linkWaiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.linkWaiters.removeValue(forKey: id) }?.resume()
        }
        try Task.checkCancellation()
    }

    /// Asks the thread to disconnect and end; returns at once.
    func stop() {
        state.withLock { $0.stopping = true }
        // The thread disconnects once woken.
        wake.signal()
    }

    /// Returns once the thread has disconnected and destroyed the client.
    func waitUntilClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if !state.exited { state.exitWaiters.append(continuation) }
                return state.exited
            }
            if done { continuation.resume() }
        }
    }
}

extension MosquittoClient.State {
    /// Forgets the ids of `pending` still waiting: their PUBACKs, if they come, are ignored.
    fileprivate mutating func abandon(_ pending: MosquittoClient.Pending) {
        for mid in pending.mids where pending.outcome.reasons[mid] == nil {
            batchOf[mid] = nil
            abandoned.insert(mid)
        }
    }
}
