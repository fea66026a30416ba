import Foundation

/// A small tmpfs mounted in a temporary folder: a disk that fills up (mounting one needs root).
public struct TinyDisk {
    public let path: String

    public static let canMount: Bool = {
        guard getuid() == 0, let disk = try? TinyDisk(megabytes: 1) else { return false }
        disk.unmount()
        return true
    }()

    public init(megabytes: Int) throws {
        path = NSTemporaryDirectory() + "tiny-disk-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path]
        mount.standardError = FileHandle.nullDevice
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    /// Writes `file` until the disk is full.
    public func fill(_ file: String) {
        let handle = open(file, O_WRONLY | O_CREAT, 0o644)
        let block = [UInt8](repeating: 0xAB, count: 4096)
        while write(handle, block, block.count) > 0 {}
        close(handle)
    }

    /// Mounts it again, read-only or not, keeping its files.
    public func remount(readOnly: Bool) throws {
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-o", "remount,\(readOnly ? "ro" : "rw")", path]
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else { throw CocoaError(.fileWriteNoPermission) }
    }

    public func unmount() {
        let umount = Process()
        umount.executableURL = URL(fileURLWithPath: "/bin/umount")
        umount.arguments = [path]
        try? umount.run()
        umount.waitUntilExit()
        try? FileManager.default.removeItem(atPath: path)
    }
}
