import ArgumentParser
import CommandSupport
#if canImport(Glibc)
import Glibc
#endif
import LocateOptions

/// `locate publish`, as `locate` lists it: the command itself is `locate-publish`, installed beside
/// `locate`, which this hands over to with the same arguments (`execv`: the same process, so its
/// signals and exit code are the command's). `locate` itself then links none of what publishing
/// needs (`PublishCommand` in Package.swift says why).
struct PublishHandoff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: PublishSummary.abstract,
        discussion: """
            Runs \(PublishSummary.executable), installed beside locate, with these arguments: \
            'locate publish --help' gives its options. Exits \(ExitStatus.unavailable.rawValue) when it is not there.
            """)

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The arguments of locate publish.", valueName: "argument"))
    var arguments: [String] = []

    func run() throws {
        Self.handOver(arguments)
    }

    /// Replaces this process with `locate-publish` run with `arguments`, SIGINT and SIGTERM pending
    /// for it; returns only to exit 69 saying why it could not.
    static func handOver(_ arguments: [String]) -> Never {
        let path = Self.executablePath()
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) }
        argv.append(nil)
        // With SIGINT and SIGTERM blocked across the exec: one that comes while locate-publish
        // loads waits until its first line catches them, instead of ending it by default.
        Interrupts.blocked { _ = execv(path, argv) }
        let reason = String(cString: strerror(errno))
        Output.error("locate publish: cannot run \(path): \(reason). It is installed beside locate (scripts/install).")
        Glibc.exit(ExitStatus.unavailable.rawValue)
    }

    /// `locate-publish` in the folder of the running `locate` (as /proc/self/exe names it), else
    /// its name alone.
    private static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return PublishSummary.executable }
        let own = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = own.lastIndex(of: "/") else { return PublishSummary.executable }
        return String(own[...slash]) + PublishSummary.executable
    }
}
