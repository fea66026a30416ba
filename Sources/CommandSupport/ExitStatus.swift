import ArgumentParser

/// How a command ends, with the codes and names of sysexits(3), shared by `locate` and `workout`
/// so that a script sees the same number for the same kind of failure from either.
///
/// Throw one as ArgumentParser's ``ExitCode``; a root command's help lists the codes it uses
/// with ``summary(_:)``:
///
/// ```swift
/// Output.error("locate once: \(error)")
/// throw ExitCode(.unavailable)
/// ```
package enum ExitStatus: Int32, CaseIterable, Sendable {
    /// Done as asked.
    case success = 0
    /// EX_USAGE: the command line is wrong (ArgumentParser's `ExitCode.validationFailure`).
    case usage = 64
    /// EX_DATAERR: an input file is not what it should be.
    case dataError = 65
    /// EX_NOINPUT: an input file, or a thing it names, does not exist or cannot be read.
    case noInput = 66
    /// EX_UNAVAILABLE: a service the command needs (gpsd, GeoClue, the bus) cannot be reached.
    case unavailable = 69
    /// EX_CANTCREAT: an output file cannot be created.
    case cannotCreate = 73
    /// EX_IOERR: reading or writing failed (the workout store).
    case ioError = 74
    /// EX_TEMPFAIL: it did not happen in time, or was interrupted; trying again may work.
    case temporaryFailure = 75
    /// EX_NOPERM: the service refused this program (GeoClue or its agent said no).
    case noPermission = 77

    /// This status as the error ArgumentParser exits with.
    package var exitCode: ExitCode { ExitCode(rawValue) }

    /// `Exit codes follow sysexits: 0 success, 64 usage, ...`, for a root command's discussion:
    /// each status used with its meaning for that command, in the order given.
    package static func summary(_ meanings: KeyValuePairs<ExitStatus, String>) -> String {
        "Exit codes follow sysexits: " + meanings.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ") + "."
    }
}

extension ExitCode {
    /// The exit code of `status`: `throw ExitCode(.unavailable)`.
    package init(_ status: ExitStatus) {
        self.init(status.rawValue)
    }
}
