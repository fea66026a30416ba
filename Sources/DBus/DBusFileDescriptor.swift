import GPSCore
#if canImport(Glibc)
import Glibc
#endif

/// A Unix file descriptor that travels in a D-Bus message (`h`), owned: it is closed when the last
/// reference to it goes away, unless it was taken out with ``take()``.
///
/// One received (BlueZ's `AcquireNotify` hands a socket this way) is a new descriptor of the
/// receiver's: a signal or a reply that nobody reads closes it, where a bare number would leak it.
/// One sent is duplicated by the bus library, and stays the sender's to close.
///
/// ```swift
/// let reply = try await bus.call(destination, path: path, interface: interface, member: "Open")
/// if case let .unixFileDescriptor(file)? = reply.first, let descriptor = file.take() {
///     defer { close(descriptor) }   // taken: ours to close
///     _ = write(descriptor, "x", 1)
/// }
/// ```
public final class DBusFileDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// The descriptor, or -1 once taken.
    private let descriptor: Locked<Int32>

    /// Takes `descriptor` into ownership: it is closed when this goes away, unless taken.
    public init(owning descriptor: Int32) {
        self.descriptor = Locked(descriptor)
    }

    /// A duplicate of `descriptor` (which stays the caller's), owned by the value; `nil` when it
    /// cannot be duplicated (not an open descriptor, or too many open). The corresponding C call
    /// is `fcntl(2)` with `F_DUPFD_CLOEXEC`.
    public convenience init?(duplicating descriptor: Int32) {
        let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
        guard duplicate >= 0 else { return nil }
        self.init(owning: duplicate)
    }

    deinit {
        let descriptor = descriptor.withLock { $0 }
        if descriptor >= 0 { close(descriptor) }
    }

    /// The descriptor, still owned by this value (valid while it lives); `nil` once taken.
    public var rawValue: Int32? {
        let descriptor = descriptor.withLock { $0 }
        return descriptor >= 0 ? descriptor : nil
    }

    /// Takes the descriptor out: the caller owns it from now on and closes it; this value no
    /// longer does. Returns `nil` when it was taken before.
    public func take() -> Int32? {
        let descriptor = descriptor.withLock { descriptor in
            defer { descriptor = -1 }
            return descriptor
        }
        return descriptor >= 0 ? descriptor : nil
    }

    /// Two descriptors are the same value when they are the same object: two numbers may name one
    /// file, and one number may name another file once closed.
    public static func == (lhs: DBusFileDescriptor, rhs: DBusFileDescriptor) -> Bool {
        lhs === rhs
    }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// "fd 7", or "fd (taken)".
    public var description: String {
        rawValue.map { "fd \($0)" } ?? "fd (taken)"
    }
}
