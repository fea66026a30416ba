import ArgumentParser

/// How a command ends, with the codes and names of sysexits(3): one table for `locate` and
/// `workout`, so that a script sees the same number for the same kind of failure from either.
/// Both commands' help prints it (``table``), and so does the README, word for word (a test holds
/// them to each other).
///
/// Throw one as ArgumentParser's ``ExitCode``:
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
    /// EX_UNAVAILABLE: a service the command needs (gpsd, GeoClue, BlueZ, the bus) cannot be reached.
    case unavailable = 69
    /// EX_CANTCREAT: an output file cannot be created.
    case cannotCreate = 73
    /// EX_IOERR: reading or writing failed (the workout store).
    case ioError = 74
    /// EX_TEMPFAIL: it did not happen in time, or was interrupted; trying again may work.
    case temporaryFailure = 75
    /// EX_NOPERM: the service refused this program (GeoClue or its agent said no), or its login (a broker, a server).
    case noPermission = 77

    /// What the code means, for either command: a row of the table.
    package var meaning: String {
        switch self {
        case .success: "success"
        case .usage: "usage: the command line is wrong"
        case .dataError: "bad input data: a file is not what it should be (the message names the file, and the line and column)"
        case .noInput: "missing input: no such file, or no such workout"
        case .unavailable: "a service is unavailable or was lost: gpsd, GeoClue, BlueZ or the bus, or there is no Bluetooth adapter (the message names the host and port, or the bus)"
        case .cannotCreate: "an output file cannot be written"
        case .ioError: "the workout store failed"
        case .temporaryFailure: "timed out, or interrupted (Ctrl-C): trying again may work"
        case .noPermission: "GeoClue or its agent refused the program, or a broker or server refused the login"
        }
    }

    /// The table, as both commands' help ends: a line of introduction, then a line per code.
    package static var table: String {
        (["Exit codes (sysexits, the same for locate and workout):"] + allCases.map { "\($0.rawValue) \($0.meaning)" })
            .joined(separator: "\n")
    }

    /// This status as the error ArgumentParser exits with.
    package var exitCode: ExitCode { ExitCode(rawValue) }
}

extension ExitCode {
    /// The exit code of `status`: `throw ExitCode(.unavailable)`.
    package init(_ status: ExitStatus) {
        self.init(status.rawValue)
    }
}
