// The one Swift file that imports sd-bus. Everything else in the module sees Swift types. It is
// longer than the package's files usually are (the thread, calls, matches, exported objects, the
// writing of values and the reading of messages for DBusDecoder): the issue that brought it asks
// for one file at the C edge, and splitting it would spread `import CSDBus` over several.
//
// A connection's `sd_bus` is used by one thread only, its own (``BusLoop``): sd-bus is not
// thread-safe. Work for the bus (a call to send, a match to add, an object to export) is queued as
// a job, and the thread is woken through an eventfd. The thread waits in poll(2) on the bus's
// descriptor and that eventfd, with sd-bus's own next deadline (a call's timeout) as the poll's
// timeout: it never wakes up to check on nothing. While a batching signal handler is registered,
// the bus is read at most once per its interval: the thread then leaves the bus's descriptor out of
// poll until the next read is due, and hands each handler what one read brought.
//
// Every callback sd-bus makes (a reply, a signal, a method call on an exported object, a property
// read) comes on that thread, with a box of ours as its user data. Each box is retained for its
// slot and released by the slot's destroy callback, which sd-bus calls when it frees the slot: when
// a call's reply has been handled, when we remove a match or an object, or when the bus itself is
// freed. So every pending call and every signal stream ends once, whatever ends it.
import CSDBus
import GPSCore
#if canImport(Glibc)
import Glibc
#endif

/// A connection's `sd_bus` and the thread that alone uses it.
final class BusLoop: Sendable {
    /// The bus, for messages: "the system bus (unix:path=/run/dbus/system_bus_socket)".
    let name: String

    /// A job for the bus's thread: given the bus, or `nil` once the connection is closed (the job
    /// then fails whatever it was for).
    typealias Job = @Sendable (Bus?) -> Void

    /// The `sd_bus`, handed to jobs on the bus's thread only.
    struct Bus: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private enum Phase {
        case open
        /// ``close()`` was asked for; the thread closes the bus at its next turn.
        case closing
        /// The thread has closed the bus: jobs are no longer taken. `error` is why, when the bus
        /// went away on its own.
        case closed(DBusError?)
    }

    private struct Shared {
        var phase = Phase.open
        var jobs: [Job] = []
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let bus: Bus
    private let wakeDescriptor: Int32
    private let shared = Locked(Shared())
    /// What only the bus's thread touches.
    fileprivate let owned = LoopOwned()

    /// Connects to `address` and starts the bus's thread. Throws when there is no bus there.
    init(_ address: DBusConnection.Address) throws(DBusError) {
        let description = address.description
        name = description
        var pointer: OpaquePointer?
        var result: Int32
        switch address {
        case .system:
            result = sd_bus_open_system(&pointer)
        case let .address(text):
            result = sd_bus_new(&pointer)
            if result >= 0, let pointer {
                result = text.withCString { sd_bus_set_address(pointer, $0) }
                if result >= 0 { result = sd_bus_set_bus_client(pointer, 1) }
                if result >= 0 { result = sd_bus_start(pointer) }
                if result < 0 { sd_bus_unref(pointer) }
            }
        }
        guard result >= 0, let pointer else {
            throw DBusError(name: .noServer, message: Self.errnoText(-result), bus: description)
        }
        let wake = csdbus_eventfd()
        guard wake >= 0 else {
            let code = errno
            sd_bus_flush_close_unref(pointer)
            throw DBusError(name: .failed, message: "eventfd: " + Self.errnoText(code), bus: description)
        }
        bus = Bus(pointer: pointer)
        wakeDescriptor = wake
        Threads.detach { [self] in run() }
    }

    deinit {
        // The thread holds the loop until it ends, so this runs after it has closed everything.
    }

    // MARK: - Jobs

    /// Queues `job` for the bus's thread (also while the connection closes: it runs there before
    /// the bus is freed); once the connection is closed, runs it at once with `nil`.
    func enqueue(_ job: @escaping Job) {
        let queued = shared.withLock { shared in
            if case .closed = shared.phase { return false }
            shared.jobs.append(job)
            // Under the lock: once the thread has marked the loop closed, it closes the eventfd, and
            // nobody may write to that descriptor number any more.
            var one: UInt64 = 1
            _ = Glibc.write(wakeDescriptor, &one, 8)
            return true
        }
        if !queued { job(nil) }
    }

    /// Someone waits for an answer promptly (``DBusConnection/readingPromptly(during:)``): the bus
    /// is read as messages come until ``endPromptReads()``, whatever batching handler spaces the
    /// reads out.
    func beginPromptReads() {
        enqueue { [owned] bus in if bus != nil { owned.promptReaders += 1 } }
    }

    /// The wait ``beginPromptReads()`` began has ended.
    func endPromptReads() {
        enqueue { [owned] bus in if bus != nil { owned.promptReaders -= 1 } }
    }

    /// Closes the connection: pending calls fail, signal streams end, exported objects go away.
    /// Returns at once; ``waitUntilClosed()`` waits for it.
    func close() {
        shared.withLock { shared in
            guard case .open = shared.phase else { return }
            shared.phase = .closing
            var one: UInt64 = 1
            _ = Glibc.write(wakeDescriptor, &one, 8)
        }
    }

    /// Whether the connection is closed (by ``close()``, or because the bus went away).
    var isClosed: Bool {
        shared.withLock { if case .closed = $0.phase { true } else { false } }
    }

    /// Why the bus went away on its own, once it has.
    var lossError: DBusError? {
        shared.withLock { if case let .closed(error) = $0.phase { error } else { nil } }
    }

    /// Returns once the connection is closed.
    func waitUntilClosed() async {
        await withCheckedContinuation { continuation in
            let closed = shared.withLock { shared in
                if case .closed = shared.phase { return true }
                shared.closeWaiters.append(continuation)
                return false
            }
            if closed { continuation.resume() }
        }
    }

    /// The error for work that found the connection closed.
    func closedError(destination: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil) -> DBusError {
        var error = lossError ?? DBusError(name: .disconnected, message: "the connection was closed", bus: name)
        error.destination = destination
        error.path = path
        error.interface = interface
        error.member = member
        return error
    }

    // MARK: - The thread

    private func run() {
        var descriptors = [pollfd](repeating: pollfd(), count: 2)
        var loss: DBusError?
        loop: while true {
            if runJobs() { break }
            var deadline: UInt64 = 0
            _ = sd_bus_get_timeout(bus.pointer, &deadline)
            var now = Self.monotonicMicroseconds()
            // The bus is read when its turn has come (at once, unless a batching handler spaces
            // the reads out and no one waits for an answer promptly), or when sd-bus has a
            // deadline due (a call's timeout).
            let prompt = owned.promptReaders > 0
            if prompt || now >= owned.nextRead || deadline <= now {
                var result: Int32
                repeat {
                    result = sd_bus_process(bus.pointer, nil)
                } while result > 0
                if result < 0 {
                    loss = DBusError(name: .disconnected, message: "the bus closed the connection (\(Self.errnoText(-result)))", bus: name)
                    break loop
                }
                owned.nextRead = now + owned.readInterval
                owned.handOverBatches()
                _ = sd_bus_get_timeout(bus.pointer, &deadline)
                now = Self.monotonicMicroseconds()
            }
            if shared.withLock({ !$0.jobs.isEmpty }) { continue }
            // Until the next read, the bus's descriptor is left out (poll passes over a negative one).
            let reading = prompt || now >= owned.nextRead
            descriptors[0] = pollfd(
                fd: reading ? sd_bus_get_fd(bus.pointer) : -1, events: Int16(truncatingIfNeeded: sd_bus_get_events(bus.pointer)), revents: 0)
            descriptors[1] = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
            let polled = poll(&descriptors, 2, Self.milliseconds(until: reading ? deadline : min(deadline, owned.nextRead)))
            if polled < 0 && errno != EINTR {
                loss = DBusError(name: .failed, message: "poll: " + Self.errnoText(errno), bus: name)
                break
            }
            if descriptors[1].revents != 0 {
                var value: UInt64 = 0
                _ = Glibc.read(wakeDescriptor, &value, 8)
            }
        }
        let (left, waiters) = shared.withLock { shared in
            shared.phase = .closed(loss)
            defer {
                shared.jobs = []
                shared.closeWaiters = []
            }
            return (shared.jobs, shared.closeWaiters)
        }
        Glibc.close(wakeDescriptor)
        for job in left { job(nil) }
        // The calls to our objects still being answered hold the bus: let them go (their callers
        // get NoReply from the bus), so that it is freed now.
        for call in owned.calls.values { sd_bus_message_unref(call) }
        owned.calls = [:]
        // Frees every slot still registered (their destroy callbacks end what waits on them).
        sd_bus_flush_close_unref(bus.pointer)
        for waiter in waiters { waiter.resume() }
    }

    /// Runs the jobs queued; whether the connection is to close. The jobs (and what they hold: a
    /// reply's values, a descriptor among them) are let go before the thread waits again.
    private func runJobs() -> Bool {
        let (jobs, closing) = shared.withLock { shared -> ([Job], Bool) in
            defer { shared.jobs = [] }
            if case .closing = shared.phase { return (shared.jobs, true) }
            return (shared.jobs, false)
        }
        for job in jobs { job(bus) }
        return closing
    }

    /// The poll(2) timeout for a deadline (CLOCK_MONOTONIC microseconds, as sd-bus gives its own;
    /// `UInt64.max` for none): -1 for none, else the milliseconds left, rounded up.
    private static func milliseconds(until deadline: UInt64) -> Int32 {
        guard deadline != UInt64.max else { return -1 }
        let now = monotonicMicroseconds()
        guard deadline > now else { return 0 }
        return Int32(clamping: (deadline - now + 999) / 1000)
    }

    /// CLOCK_MONOTONIC in microseconds, sd-bus's clock.
    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }

    static func errnoText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// State of a connection that only its bus's thread reads or writes (so it needs no lock).
fileprivate final class LoopOwned: @unchecked Sendable {
    /// The calls to our exported objects whose handlers are still at work, by id: each holds a
    /// reference to its message (and so to the bus) until it is answered or the bus closes.
    var calls: [UInt64: OpaquePointer] = [:]
    var nextCall: UInt64 = 0

    /// How many wait for an answer promptly: while any does, the bus is read as messages come.
    var promptReaders = 0

    /// How often each batching handler lets the bus be read, in microseconds, by handler.
    var readIntervals: [ObjectIdentifier: UInt64] = [:]
    /// The shortest of ``readIntervals``: the bus is read at most this often (0: as messages come).
    var readInterval: UInt64 { readIntervals.values.min() ?? 0 }
    /// When the bus may be read next (CLOCK_MONOTONIC microseconds).
    var nextRead: UInt64 = 0
    /// The batching handlers that got signals in this read, by handler: each hands them over.
    var batches: [ObjectIdentifier: () -> Void] = [:]

    /// Hands over the batches of the read just done.
    func handOverBatches() {
        guard !batches.isEmpty else { return }
        let ready = batches
        batches = [:]
        for handOver in ready.values { handOver() }
    }
}

/// The signals a batching handler got in one read of the bus, until handed over (the bus's
/// thread only).
private final class SignalBatch<Arguments>: @unchecked Sendable {
    private var signals: [Arguments] = []
    /// Set once the match is registered: only then does the bus's thread count its interval, and
    /// only then is the match's end reported there (before, it is reported where it failed).
    var isInstalled = false
    private let handler: @Sendable ([Arguments]) -> Void

    init(handler: @escaping @Sendable ([Arguments]) -> Void) {
        self.handler = handler
    }

    /// Adds `arguments`; whether the batch was empty before.
    func add(_ arguments: Arguments) -> Bool {
        signals.append(arguments)
        return signals.count == 1
    }

    func handOver() {
        guard !signals.isEmpty else { return }
        let batch = signals
        signals = []
        handler(batch)
    }
}

// MARK: - Calls

extension BusLoop {
    /// Calls `member` and returns the reply, read by `decode` on the bus's thread straight from
    /// the message. Throws ``DBusError`` for an error reply, a reply `decode` cannot read
    /// (``DBusError/Name/invalidSignature``), a timeout or a closed connection;
    /// `CancellationError` when the task is cancelled first.
    func call<Reply: Sendable>(
        _ call: DBusMethodCall, timeout: Duration?, decode: @escaping @Sendable (inout DBusDecoder) throws(DBusDecodingError) -> Reply
    ) async throws -> Reply {
        let pending = Pending<Reply>()
        let busName = name
        let box = ReplyBox(call: call, busName: busName, received: { reader in
            var decoder = DBusDecoder(.message(reader))
            do {
                pending.finish(.success(try decode(&decoder)))
            } catch {
                pending.finish(.failure(DBusError(
                    name: .invalidSignature, message: "the reply (\(reader.bodySignature)) is not what was expected: \(error)", bus: busName,
                    destination: call.destination, path: call.path, interface: call.interface, member: call.member)))
            }
        }, failed: { pending.finish(.failure($0)) })
        // A call given up (its task cancelled) lets its reply go: with no timeout, it would
        // otherwise be held until the connection closes.
        defer {
            if pending.wasCancelled {
                enqueue { _ in
                    guard let slot = box.slot else { return }
                    box.slot = nil
                    Slots.remove(slot)
                }
            }
        }
        // sd-bus takes 0 for its default (25 s) and UINT64_MAX for none.
        let microseconds = timeout.map { UInt64(max(1, $0.components.seconds * 1_000_000 + $0.components.attoseconds / 1_000_000_000_000)) } ?? .max
        return try await pending.wait { [self] in
            enqueue { [self] bus in
                guard let bus else {
                    pending.finish(.failure(closedError(destination: call.destination, path: call.path, interface: call.interface, member: call.member)))
                    return
                }
                let failure = { (code: Int32, what: String) in
                    pending.finish(.failure(DBusError(
                        name: .failed, message: "\(what): \(Self.errnoText(-code))", bus: self.name, destination: call.destination,
                        path: call.path, interface: call.interface, member: call.member)))
                }
                var message: OpaquePointer?
                var result = sd_bus_message_new_method_call(bus.pointer, &message, call.destination, call.path, call.interface, call.member)
                guard result >= 0, let message else { return failure(result, "could not make the call") }
                defer { sd_bus_message_unref(message) }
                for argument in call.arguments {
                    result = MessageCodec.append(argument, to: message)
                    guard result >= 0 else { return failure(result, "could not write the argument \(argument) (\(argument.signature))") }
                }
                let userData = Unmanaged.passRetained(box).toOpaque()
                var slot: OpaquePointer?
                result = sd_bus_call_async(bus.pointer, &slot, message, replyReceived, userData, microseconds)
                guard result >= 0, let slot else {
                    Unmanaged<ReplyBox>.fromOpaque(userData).release()
                    return failure(result, "could not send the call")
                }
                box.slot = slot
                Slots.adopt(slot, destroy: replyBoxDestroyed)
            }
        }
    }
}

/// What a call's reply callback needs: what the call was, and what to do with its answer.
private final class ReplyBox: @unchecked Sendable {
    let call: DBusMethodCall
    let busName: String
    /// Reads the reply (on the bus's thread) and finishes the call with it.
    let received: (MessageReader) -> Void
    /// Finishes the call with an error.
    let failed: (DBusError) -> Void
    /// The call's slot until the reply comes or it is given up (the bus's thread only).
    var slot: OpaquePointer?

    init(call: DBusMethodCall, busName: String, received: @escaping (MessageReader) -> Void, failed: @escaping (DBusError) -> Void) {
        self.call = call
        self.busName = busName
        self.received = received
        self.failed = failed
    }

    func error(name: DBusError.Name, message: String) -> DBusError {
        DBusError(
            name: name, message: message, bus: busName, destination: call.destination, path: call.path, interface: call.interface,
            member: call.member)
    }
}

private let replyReceived: sd_bus_message_handler_t = { message, userData, _ in
    guard let message, let userData else { return 0 }
    let box = Unmanaged<ReplyBox>.fromOpaque(userData).takeUnretainedValue()
    box.slot = nil  // sd-bus frees it once this returns
    if let error = MessageCodec.error(in: message) {
        box.failed(box.error(name: DBusError.Name(rawValue: error.name), message: error.message))
    } else {
        box.received(MessageReader(message))
    }
    return 1
}

private let replyBoxDestroyed: sd_bus_destroy_t = { userData in
    guard let userData else { return }
    let box = Unmanaged<ReplyBox>.fromOpaque(userData).takeRetainedValue()
    box.slot = nil
    // No reply came before the slot went: the bus closed (or the call was given up).
    box.failed(box.error(name: .noReply, message: "the connection closed before the reply came"))
}

extension BusLoop {
    /// This connection's unique name, once the bus has answered its Hello.
    func uniqueName() async throws -> String {
        let pending = Pending<String>()
        return try await pending.wait { [self] in
            enqueue { [self] bus in
                guard let bus else { return pending.finish(.failure(closedError())) }
                var name: UnsafePointer<CChar>?
                let result = sd_bus_get_unique_name(bus.pointer, &name)
                guard result >= 0, let name else {
                    return pending.finish(.failure(DBusError(name: .failed, message: "no unique name: \(Self.errnoText(-result))", bus: self.name)))
                }
                pending.finish(.success(String(cString: name)))
            }
        }
    }
}

// MARK: - Slots

/// How our slots are held: floating (the bus owns them, and frees them when it is freed), with a
/// destroy callback that releases the box given as their user data.
enum Slots {
    static func adopt(_ slot: OpaquePointer, destroy: sd_bus_destroy_t) {
        sd_bus_slot_set_destroy_callback(slot, destroy)
        sd_bus_slot_set_floating(slot, 1)
        // Floating, the bus holds the slot; this drops the reference we were given.
        sd_bus_slot_unref(slot)
    }

    /// Removes a slot that is still registered (on the bus's thread): its destroy callback runs.
    static func remove(_ slot: OpaquePointer) {
        sd_bus_slot_unref(slot)
    }
}

/// A registration on the bus (a match, an exported interface, an object manager) that ends when
/// cancelled. The slot is touched on the bus's thread only.
final class SlotBox: @unchecked Sendable {
    private let loop: BusLoop
    /// The registered slot, until its destroy callback (bus's thread only).
    fileprivate var slot: OpaquePointer?

    init(loop: BusLoop) {
        self.loop = loop
    }

    /// Removes the registration (on the bus's thread; at once if the connection is closed), then
    /// runs `then` there: what announces the removal must not reach anyone before it is done.
    func remove(then: (@Sendable (BusLoop.Bus) -> Void)? = nil) {
        loop.enqueue { [self] bus in
            guard let bus, let slot else { return }
            self.slot = nil
            Slots.remove(slot)
            then?(bus)
        }
    }
}

// MARK: - Matches

extension BusLoop {
    /// Adds `rule` and returns once the bus has confirmed it; `received` gets each matching
    /// signal on the bus's thread, `ended` is called once when the match goes away (removed, or the
    /// connection closed).
    func addMatch<Arguments: Sendable>(
        _ rule: String, decode: @escaping @Sendable (inout DBusDecoder) throws(DBusDecodingError) -> Arguments,
        received: @escaping @Sendable (DBusTypedSignal<Arguments>) -> Void, ended: @escaping @Sendable () -> Void
    ) async throws -> SlotBox {
        // A signal whose arguments do not read as `Arguments` is not one of those asked for.
        try await addMatch(rule, installed: {}, received: { message in
            var decoder = DBusDecoder(.message(MessageReader(message)))
            guard let arguments = try? decode(&decoder) else { return }  // not one of those asked for
            received(DBusTypedSignal(
                sender: MessageCodec.string(sd_bus_message_get_sender(message)) ?? "",
                path: MessageCodec.string(sd_bus_message_get_path(message)) ?? "",
                interface: MessageCodec.string(sd_bus_message_get_interface(message)) ?? "",
                member: MessageCodec.string(sd_bus_message_get_member(message)) ?? "",
                arguments: arguments))
        }, ended: ended)
    }

    /// Adds `rule`; `installed` runs on the bus's thread once the bus has confirmed the match (its
    /// reply to AddMatch read), and `received` with each matching message, as it is read. (Run as
    /// soon as the match was sent, a batching handler's interval spaced out the reading of that
    /// very reply: every match a sensor added took up to its 20 ms more, and a long interval
    /// outlasted the call's timeout.)
    private func addMatch(
        _ rule: String, installed: @escaping @Sendable () -> Void, received: @escaping (OpaquePointer) -> Void,
        ended: @escaping @Sendable () -> Void
    ) async throws -> SlotBox {
        let pending = Pending<Void>()
        let registration = SlotBox(loop: self)
        let box = MatchBox(registration: registration, installed: pending, confirmed: installed, received: received, ended: ended, busName: name, rule: rule)
        defer { if pending.wasCancelled { registration.remove() } }
        try await pending.wait { [self] in
            enqueue { [self] bus in
                guard let bus else {
                    pending.finish(.failure(closedError()))
                    ended()
                    return
                }
                let userData = Unmanaged.passRetained(box).toOpaque()
                var slot: OpaquePointer?
                let result = sd_bus_add_match_async(bus.pointer, &slot, rule, matchReceived, matchInstalled, userData)
                guard result >= 0, let slot else {
                    Unmanaged<MatchBox>.fromOpaque(userData).release()
                    pending.finish(.failure(DBusError(name: .failed, message: "could not add the match \(rule): \(Self.errnoText(-result))", bus: name)))
                    ended()
                    return
                }
                registration.slot = slot
                Slots.adopt(slot, destroy: matchBoxDestroyed)
            }
        }
        return registration
    }
}

extension BusLoop {
    /// Adds `rule` for a batching handler: while it is registered, the bus is read at most once
    /// per `interval`, and `handler` gets the arguments of the matching signals each read brought,
    /// on the bus's thread. `ended` is called once when the match goes away, after the last batch.
    func addBatchedMatch<Arguments: Sendable>(
        _ rule: String, interval: Duration, decode: @escaping @Sendable (inout DBusDecoder) throws(DBusDecodingError) -> Arguments,
        handler: @escaping @Sendable ([Arguments]) -> Void, ended: @escaping @Sendable () -> Void
    ) async throws -> SlotBox {
        let batch = SignalBatch(handler: handler)
        let id = ObjectIdentifier(batch)
        let microseconds = UInt64(max(0, interval.components.seconds)) * 1_000_000 + UInt64(max(0, interval.components.attoseconds) / 1_000_000_000_000)
        let owned = owned
        return try await addMatch(
            rule,
            installed: {
                batch.isInstalled = true
                owned.readIntervals[id] = microseconds
            },
            received: { message in
                var decoder = DBusDecoder(.message(MessageReader(message)))
                guard let arguments = try? decode(&decoder) else { return }  // not one of those asked for
                if batch.add(arguments) { owned.batches[id] = batch.handOver }
            },
            ended: {
                if batch.isInstalled {
                    owned.readIntervals[id] = nil
                    batch.handOver()
                }
                ended()
            })
    }
}

private final class MatchBox: @unchecked Sendable {
    let registration: SlotBox
    let installed: Pending<Void>
    /// Runs on the bus's thread once the bus confirmed the match.
    let confirmed: @Sendable () -> Void
    /// Reads a matching signal and hands it on (on the bus's thread).
    let received: (OpaquePointer) -> Void
    let ended: @Sendable () -> Void
    let busName: String
    let rule: String

    init(
        registration: SlotBox, installed: Pending<Void>, confirmed: @escaping @Sendable () -> Void, received: @escaping (OpaquePointer) -> Void,
        ended: @escaping @Sendable () -> Void, busName: String, rule: String
    ) {
        self.registration = registration
        self.installed = installed
        self.confirmed = confirmed
        self.received = received
        self.ended = ended
        self.busName = busName
        self.rule = rule
    }
}

private let matchReceived: sd_bus_message_handler_t = { message, userData, _ in
    guard let message, let userData else { return 0 }
    Unmanaged<MatchBox>.fromOpaque(userData).takeUnretainedValue().received(message)
    return 0
}

private let matchInstalled: sd_bus_message_handler_t = { message, userData, _ in
    guard let message, let userData else { return 0 }
    let box = Unmanaged<MatchBox>.fromOpaque(userData).takeUnretainedValue()
    if let error = MessageCodec.error(in: message) {
        box.installed.finish(.failure(DBusError(
            name: DBusError.Name(rawValue: error.name), message: "the bus refused the match \(box.rule): \(error.message)", bus: box.busName,
            destination: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "AddMatch")))
        box.registration.remove()
    } else {
        box.confirmed()
        box.installed.finish(.success(()))
    }
    return 1
}

private let matchBoxDestroyed: sd_bus_destroy_t = { userData in
    guard let userData else { return }
    let box = Unmanaged<MatchBox>.fromOpaque(userData).takeRetainedValue()
    box.registration.slot = nil
    box.installed.finish(.failure(DBusError(name: .disconnected, message: "the connection closed before the bus confirmed the match", bus: box.busName)))
    box.ended()
}

// MARK: - Sending

extension BusLoop {
    /// Sends a signal (in order with everything else queued from the same thread). Throws when
    /// the connection is closed.
    func emitSignal(path: String, interface: String, member: String, arguments: [DBusValue]) throws(DBusError) {
        guard !isClosed else { throw closedError(path: path, interface: interface, member: member) }
        if let invalid = arguments.lazy.compactMap(\.invalidity).first {
            throw DBusError(name: .invalidArgs, message: invalid, bus: name, path: path, interface: interface, member: member)
        }
        enqueue { bus in
            guard let bus else { return }
            var message: OpaquePointer?
            guard sd_bus_message_new_signal(bus.pointer, &message, path, interface, member) >= 0, let message else { return }
            defer { sd_bus_message_unref(message) }
            for argument in arguments where MessageCodec.append(argument, to: message) < 0 { return }
            sd_bus_send(bus.pointer, message, nil)
        }
    }

    /// Sends the ObjectManager's `InterfacesAdded` for `interfaces` at `path`.
    func emitInterfacesAdded(path: String, interfaces: [String]) {
        enqueue { bus in
            guard let bus else { return }
            _ = withCStringArray(interfaces) { sd_bus_emit_interfaces_added_strv(bus.pointer, path, $0) }
        }
    }

    /// Sends the ObjectManager's `InterfacesRemoved` for `interfaces` at `path`, on the bus's thread.
    static func emitInterfacesRemoved(on bus: Bus, path: String, interfaces: [String]) {
        _ = withCStringArray(interfaces) { sd_bus_emit_interfaces_removed_strv(bus.pointer, path, $0) }
    }

    /// Serves `org.freedesktop.DBus.ObjectManager` at `path` (sd-bus answers `GetManagedObjects`
    /// from the objects exported below it).
    func addObjectManager(at path: String) async throws -> SlotBox {
        let pending = Pending<Void>()
        let registration = SlotBox(loop: self)
        defer { if pending.wasCancelled { registration.remove() } }
        try await pending.wait { [self] in
            enqueue { [self] bus in
                guard let bus else { return pending.finish(.failure(closedError(path: path))) }
                var slot: OpaquePointer?
                let result = sd_bus_add_object_manager(bus.pointer, &slot, path)
                guard result >= 0, let slot else {
                    return pending.finish(.failure(DBusError(
                        name: .failed, message: "could not serve an object manager: \(Self.errnoText(-result))", bus: name, path: path)))
                }
                registration.slot = slot
                let box = Unmanaged.passRetained(registration).toOpaque()
                sd_bus_slot_set_userdata(slot, box)
                Slots.adopt(slot, destroy: slotBoxDestroyed)
                pending.finish(.success(()))
            }
        }
        return registration
    }
}

private let slotBoxDestroyed: sd_bus_destroy_t = { userData in
    guard let userData else { return }
    Unmanaged<SlotBox>.fromOpaque(userData).takeRetainedValue().slot = nil
}

private func withCStringArray<Result>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Result) -> Result {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}

// MARK: - Exported objects

extension BusLoop {
    /// Registers `object` (one interface at one path) and returns once sd-bus serves it.
    func export(_ object: DBusExportedInterface) async throws -> SlotBox {
        let pending = Pending<Void>()
        let registration = SlotBox(loop: self)
        defer { if pending.wasCancelled { registration.remove() } }
        try await pending.wait { [self] in
            enqueue { [self] bus in
                guard let bus else { return pending.finish(.failure(closedError(path: object.path, interface: object.interface.name))) }
                let table = VTable(object: object, registration: registration, loop: self)
                let userData = Unmanaged.passRetained(table).toOpaque()
                var slot: OpaquePointer?
                let result = sd_bus_add_object_vtable(bus.pointer, &slot, object.path, object.interface.name, table.entries, userData)
                guard result >= 0, let slot else {
                    Unmanaged<VTable>.fromOpaque(userData).release()
                    return pending.finish(.failure(DBusError(
                        name: .failed, message: "could not export the interface: \(Self.errnoText(-result))", bus: name, path: object.path,
                        interface: object.interface.name)))
                }
                registration.slot = slot
                Slots.adopt(slot, destroy: vtableDestroyed)
                pending.finish(.success(()))
            }
        }
        return registration
    }

    /// Sends the answer to the method call `id` (see ``LoopOwned/calls``), on the bus's thread,
    /// and lets the call go. After the connection closed there is nothing to answer.
    fileprivate func reply(toCall id: UInt64, member: String, with result: Result<[DBusValue], any Error>, expected signature: String) {
        enqueue { [owned] bus in
            guard bus != nil, let call = owned.calls.removeValue(forKey: id) else { return }
            defer { sd_bus_message_unref(call) }
            guard sd_bus_message_get_expect_reply(call) > 0 else { return }
            switch result {
            case let .success(values) where DBusValue.signature(of: values) == signature:
                var reply: OpaquePointer?
                guard sd_bus_message_new_method_return(call, &reply) >= 0, let reply else {
                    return MessageCodec.replyError(to: call, name: .failed, message: "\(member) could not make its answer")
                }
                defer { sd_bus_message_unref(reply) }
                for value in values where MessageCodec.append(value, to: reply) < 0 {
                    return MessageCodec.replyError(to: call, name: .failed, message: "\(member) answered a value that cannot be sent: \(value)")
                }
                sd_bus_send(nil, reply, nil)
            case let .success(values):
                MessageCodec.replyError(
                    to: call, name: .failed, message: "\(member) answered \(DBusValue.signature(of: values)), not its declared \(signature)")
            case let .failure(error as DBusError):
                MessageCodec.replyError(to: call, name: error.name, message: error.message)
            case let .failure(error):
                MessageCodec.replyError(to: call, name: .failed, message: "\(error)")
            }
        }
    }
}

/// An exported interface's vtable, built at run time, with the C strings it points to.
private final class VTable {
    let object: DBusExportedInterface
    let registration: SlotBox
    let loop: BusLoop
    let entries: UnsafeMutablePointer<sd_bus_vtable>
    private var strings: [UnsafeMutablePointer<CChar>] = []

    init(object: DBusExportedInterface, registration: SlotBox, loop: BusLoop) {
        self.object = object
        self.registration = registration
        self.loop = loop
        let interface = object.interface
        let count = 2 + interface.methods.count + interface.properties.count + interface.signals.count
        entries = .allocate(capacity: count)
        var index = 0
        csdbus_vtable_start(entries + index)
        index += 1
        for method in interface.methods {
            csdbus_vtable_method(entries + index, keep(method.name), keep(method.input), keep(method.output), methodCalled)
            index += 1
        }
        for property in interface.properties {
            if property.isWritable {
                csdbus_vtable_writable_property(entries + index, keep(property.name), keep(property.signature), propertyRead, propertyWritten)
            } else {
                csdbus_vtable_property(entries + index, keep(property.name), keep(property.signature), propertyRead)
            }
            index += 1
        }
        for signal in interface.signals {
            csdbus_vtable_signal(entries + index, keep(signal.name), keep(signal.signature))
            index += 1
        }
        csdbus_vtable_end(entries + index)
    }

    private func keep(_ text: String) -> UnsafeMutablePointer<CChar> {
        let copy = strdup(text)!
        strings.append(copy)
        return copy
    }

    deinit {
        entries.deallocate()
        for string in strings { free(string) }
    }
}

private let vtableDestroyed: sd_bus_destroy_t = { userData in
    guard let userData else { return }
    Unmanaged<VTable>.fromOpaque(userData).takeRetainedValue().registration.slot = nil
}

private let methodCalled: sd_bus_message_handler_t = { message, userData, replyError in
    guard let message, let userData else { return -EINVAL }
    let table = Unmanaged<VTable>.fromOpaque(userData).takeUnretainedValue()
    let member = MessageCodec.string(sd_bus_message_get_member(message)) ?? ""
    guard let method = table.object.interface.methods.first(where: { $0.name == member }) else {
        return sd_bus_error_set(replyError, DBusError.Name.unknownMethod.rawValue, "no method \(member)")
    }
    let arguments: [DBusValue]
    do {
        var decoder = DBusDecoder(.message(MessageReader(message)))
        arguments = try decoder.decodeRest()
    } catch {
        return sd_bus_error_set(replyError, DBusError.Name.invalidArgs.rawValue, "\(error)")
    }
    let call = DBusMethodCall(
        destination: nil, path: table.object.path, interface: table.object.interface.name, member: member, arguments: arguments,
        sender: MessageCodec.string(sd_bus_message_get_sender(message)))
    // The call is kept (and answered) on this thread, by its id: the handler's task never
    // touches sd-bus.
    let loop = table.loop
    loop.owned.nextCall += 1
    let id = loop.owned.nextCall
    loop.owned.calls[id] = sd_bus_message_ref(message)
    Task {
        let result: Result<[DBusValue], any Error>
        do {
            result = .success(try await method.handler(call))
        } catch {
            result = .failure(error)
        }
        loop.reply(toCall: id, member: member, with: result, expected: method.output)
    }
    return 1
}

private let propertyRead: sd_bus_property_get_t = { _, _, _, property, reply, userData, replyError in
    guard let property, let reply, let userData else { return -EINVAL }
    let table = Unmanaged<VTable>.fromOpaque(userData).takeUnretainedValue()
    let name = String(cString: property)
    guard let value = table.object.value(of: name) else {
        return sd_bus_error_set(replyError, DBusError.Name.unknownProperty.rawValue, "no property \(name)")
    }
    return MessageCodec.append(value, to: reply)
}

private let propertyWritten: sd_bus_property_set_t = { _, _, _, property, message, userData, replyError in
    guard let property, let message, let userData else { return -EINVAL }
    let table = Unmanaged<VTable>.fromOpaque(userData).takeUnretainedValue()
    let name = String(cString: property)
    do {
        var decoder = DBusDecoder(.message(MessageReader(message)))
        guard let value = try decoder.decodeIfPresent(DBusValue.self) else {
            return sd_bus_error_set(replyError, DBusError.Name.invalidArgs.rawValue, "no value for \(name)")
        }
        try table.object.set(name, to: value, bySender: true)
        return 1
    } catch let refusal as DBusError {
        return sd_bus_error_set(replyError, refusal.name.rawValue, refusal.message)
    } catch {
        return sd_bus_error_set(replyError, DBusError.Name.invalidArgs.rawValue, "\(error)")
    }
}

// MARK: - Values in messages

/// Writes ``DBusValue``s into sd-bus messages, by their signatures, and reads a message's header
/// and errors. (Values are read by ``DBusDecoder`` through ``MessageReader``.)
enum MessageCodec {
    static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// The error name and text of an error reply, or `nil` for any other message.
    static func error(in message: OpaquePointer) -> (name: String, message: String)? {
        guard sd_bus_message_is_method_error(message, nil) > 0, let error = sd_bus_message_get_error(message) else { return nil }
        return (string(error.pointee.name) ?? DBusError.Name.failed.rawValue, string(error.pointee.message) ?? "")
    }

    /// Answers `call` with the error `name`.
    static func replyError(to call: OpaquePointer, name: DBusError.Name, message: String) {
        var error = csdbus_error_null()
        sd_bus_error_set(&error, name.rawValue, message)
        sd_bus_reply_method_error(call, &error)
        sd_bus_error_free(&error)
    }

    /// Appends `value` to `message`; a negative errno when sd-bus refuses it.
    static func append(_ value: DBusValue, to message: OpaquePointer) -> Int32 {
        func basic<T>(_ type: Character, _ value: T) -> Int32 {
            withUnsafePointer(to: value) { sd_bus_message_append_basic(message, CChar(type.asciiValue!), $0) }
        }
        func text(_ type: Character, _ value: String) -> Int32 {
            value.withCString { sd_bus_message_append_basic(message, CChar(type.asciiValue!), $0) }
        }
        func container(_ type: Character, _ contents: String, _ body: () -> Int32) -> Int32 {
            var result = contents.withCString { sd_bus_message_open_container(message, CChar(type.asciiValue!), $0) }
            guard result >= 0 else { return result }
            result = body()
            guard result >= 0 else { return result }
            return sd_bus_message_close_container(message)
        }
        func each(_ values: [DBusValue]) -> Int32 {
            for value in values {
                let result = append(value, to: message)
                if result < 0 { return result }
            }
            return 0
        }
        switch value {
        case let .byte(value): return basic("y", value)
        case let .boolean(value): return basic("b", Int32(value ? 1 : 0))
        case let .int16(value): return basic("n", value)
        case let .uint16(value): return basic("q", value)
        case let .int32(value): return basic("i", value)
        case let .uint32(value): return basic("u", value)
        case let .int64(value): return basic("x", value)
        case let .uint64(value): return basic("t", value)
        case let .double(value): return basic("d", value)
        case let .unixFileDescriptor(file):
            // sd-bus duplicates it: the value still owns its own.
            guard let descriptor = file.rawValue else { return -EBADF }
            return basic("h", descriptor)
        case let .bytes(bytes):
            // Whole, in one copy.
            return bytes.withUnsafeBytes { sd_bus_message_append_array(message, CChar(UInt8(ascii: "y")), $0.baseAddress, $0.count) }
        case let .string(value): return text("s", value)
        case let .objectPath(value): return text("o", value)
        case let .signature(value): return text("g", value)
        case let .array("y", values):
            guard let bytes = value.bytesValue else { return -EINVAL }
            _ = values
            return append(.bytes(bytes), to: message)
        case let .array(element, values):
            guard values.allSatisfy({ $0.signature == element }) else { return -EINVAL }
            return container("a", element) { each(values) }
        case let .dictionary(key, valueType, entries):
            guard entries.allSatisfy({ $0.key.signature == key && $0.value.signature == valueType }) else { return -EINVAL }
            return container("a", "{" + key + valueType + "}") {
                for entry in entries {
                    let result = container("e", key + valueType) { each([entry.key, entry.value]) }
                    if result < 0 { return result }
                }
                return 0
            }
        case let .structure(fields):
            return container("r", DBusValue.signature(of: fields)) { each(fields) }
        case let .variant(inner):
            return container("v", inner.signature) { append(inner, to: message) }
        }
    }
}

// MARK: - Reading messages

/// A message read in place for a ``DBusDecoder``: sd-bus keeps the position, and the containers
/// entered. Used on the bus's thread only, while the message is alive (inside the callback that
/// was given it).
struct MessageReader {
    let message: OpaquePointer

    init(_ message: OpaquePointer) {
        self.message = message
    }

    private typealias Code = DBusDecoder.Code

    /// The signature of the whole body: "sa{sv}as".
    var bodySignature: String {
        MessageCodec.string(sd_bus_message_get_signature(message, 1)) ?? ""
    }

    /// The type code of the next value and its contents' signature (for a container), or `nil`
    /// at the end of the level being read.
    private func peek() throws(DBusDecodingError) -> (code: UInt8, contents: UnsafePointer<CChar>?)? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let result = sd_bus_message_peek_type(message, &type, &contents)
        guard result >= 0 else {
            throw DBusDecodingError(expected: "a readable message", found: "a message sd-bus cannot read (\(BusLoop.errnoText(-result)))")
        }
        return result == 0 ? nil : (UInt8(bitPattern: type), contents)
    }

    func nextCode() throws(DBusDecodingError) -> UInt8? {
        try peek()?.code
    }

    /// The complete type of the next value: "s", "a{sv}", "(tt)".
    func nextSignature() -> String? {
        guard let (code, contents) = try? peek() else { return nil }  // unreadable: no signature
        let inner = contents.map { String(cString: $0) } ?? ""
        return switch code {
        case Code.array: "a" + inner
        case Code.structure: "(" + inner + ")"
        case Code.dictionaryEntry: "{" + inner + "}"
        default: String(UnicodeScalar(code))
        }
    }

    private func mismatch(_ expected: String) -> DBusDecodingError {
        DBusDecodingError(expected: expected, found: nextSignature())
    }

    func skip() throws(DBusDecodingError) {
        guard let signature = nextSignature() else { throw mismatch("a value") }
        let result = signature.withCString { sd_bus_message_skip(message, $0) }
        guard result >= 0 else { throw mismatch("a value sd-bus can pass over (\(BusLoop.errnoText(-result)))") }
    }

    func enter(_ code: UInt8) throws(DBusDecodingError) {
        guard let next = try peek(), next.code == code else { throw mismatch(DBusDecoder.containerName(code)) }
        let result = sd_bus_message_enter_container(message, CChar(bitPattern: code), next.contents)
        guard result > 0 else { throw mismatch(DBusDecoder.containerName(code) + " sd-bus can enter (\(BusLoop.errnoText(-result)))") }
    }

    /// Leaves the container entered last, passing over what is left in it.
    func exit() throws(DBusDecodingError) {
        while try peek() != nil { try skip() }
        let result = sd_bus_message_exit_container(message)
        guard result >= 0 else { throw DBusDecodingError(expected: "the end of a container", found: "an error (\(BusLoop.errnoText(-result)))") }
    }

    /// Reads the next value, a basic one of type `code`, into a `T`.
    private func basic<T>(_ code: UInt8, _ initial: T) throws(DBusDecodingError) -> T {
        var value = initial
        let result = withUnsafeMutableBytes(of: &value) { sd_bus_message_read_basic(message, CChar(bitPattern: code), $0.baseAddress) }
        guard result > 0 else { throw mismatch(String(UnicodeScalar(code))) }
        return value
    }

    func readString() throws(DBusDecodingError) -> String {
        guard let code = try peek()?.code, code == Code.string || code == Code.objectPath || code == Code.signature else {
            throw mismatch("a string (s)")
        }
        let pointer = try basic(code, UnsafePointer<CChar>?.none)
        return pointer.map { String(cString: $0) } ?? ""
    }

    func readBoolean() throws(DBusDecodingError) -> Bool {
        guard try peek()?.code == Code.boolean else { throw mismatch("a boolean (b)") }
        return try basic(Code.boolean, Int32(0)) != 0
    }

    func readDouble() throws(DBusDecodingError) -> Double {
        if try peek()?.code == Code.double { return try basic(Code.double, 0.0) }
        return switch try readInteger() {
        case let .signed(value): Double(value)
        case let .unsigned(value): Double(value)
        }
    }

    func readInteger() throws(DBusDecodingError) -> DBusDecoder.Integer {
        switch try peek()?.code {
        case Code.byte: .unsigned(UInt64(try basic(Code.byte, UInt8(0))))
        case Code.int16: .signed(Int64(try basic(Code.int16, Int16(0))))
        case Code.uint16: .unsigned(UInt64(try basic(Code.uint16, UInt16(0))))
        case Code.int32: .signed(Int64(try basic(Code.int32, Int32(0))))
        case Code.uint32: .unsigned(UInt64(try basic(Code.uint32, UInt32(0))))
        case Code.int64: .signed(try basic(Code.int64, Int64(0)))
        case Code.uint64: .unsigned(try basic(Code.uint64, UInt64(0)))
        default: throw mismatch("an integer")
        }
    }

    /// The next value, an array of bytes, whole: one copy out of the message.
    func readBytes() throws(DBusDecodingError) -> [UInt8] {
        var pointer: UnsafeRawPointer?
        var size = 0
        let result = sd_bus_message_read_array(message, CChar(bitPattern: Code.byte), &pointer, &size)
        guard result > 0 else { throw mismatch("an array of bytes (ay)") }
        guard let pointer, size > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: size))
    }

    /// The next value, a file descriptor: a duplicate the caller owns (the message closes its own).
    func readFileDescriptor() throws(DBusDecodingError) -> Int32 {
        guard try peek()?.code == Code.unixFileDescriptor else { throw mismatch("a file descriptor (h)") }
        let descriptor = try basic(Code.unixFileDescriptor, Int32(-1))
        let owned = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
        guard owned >= 0 else { throw mismatch("a file descriptor that can be duplicated (\(BusLoop.errnoText(errno)))") }
        return owned
    }
}
