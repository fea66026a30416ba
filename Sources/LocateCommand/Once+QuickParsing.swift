import ArgumentParser
import LocateOptions

// `locate once` is what a status bar or a script runs again and again, so its start-up is
// measured (scripts/bench once-latency). ArgumentParser finds a command's options by reflection
// and dynamic casts, and the Swift runtime answers the first cast of each type by scanning every
// protocol conformance record of the program (about 4,000 here, most of them the standard
// library's and FoundationEssentials'): about half of the instructions of a whole `locate once`.
// The invocations a script makes (a server, value options, -v) are read here directly instead;
// anything else (help, GeoClue, a value that does not parse, an option given twice, a check that
// fails) is left to ArgumentParser, which then prints its own help and messages, so that both
// paths give one behaviour. LocateCommandTests checks them against each other.

extension OnceRequest {
    /// The request `arguments` (what follows `locate once`) make, read without ArgumentParser, or
    /// nil for anything but a server, `--timeout`, `--max-age`, `--gpsd-clock`, `--epoch-wait`,
    /// `--min-mode`, `--accuracy`, `--format`, `--simulate` and `-v`/`--verbose`, each at most
    /// once, with values that parse as ArgumentParser parses them and pass ``validate()``.
    init?(quickParsing arguments: [String]) {
        var request = OnceRequest()
        var given: [String] = []  // the options given, to leave one given twice to ArgumentParser
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-") else {
                // The one positional argument, the server ("help" is left to ArgumentParser).
                guard request.server == nil, argument != "help" else { return nil }
                request.server = argument
                continue
            }
            var name = argument
            var value: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
                guard value != "" else { return nil }  // ArgumentParser: a missing value
            }
            guard let option = Self.quickOption(named: name), !given.contains(option.name) else { return nil }
            given.append(option.name)
            switch option.kind {
            case .flag:
                guard value == nil else { return nil }
                request.verbose = true
            case let .value(unconditional):
                if value == nil {
                    // As ArgumentParser's `.next`: a value that looks like an option is an error
                    // it reports; `.unconditional` takes the next argument whatever it is.
                    guard index < arguments.endIndex, unconditional || !arguments[index].hasPrefix("-") else { return nil }
                    value = arguments[index]
                    index += 1
                }
                guard let value, request.set(option.name, to: value) else { return nil }
            }
        }
        do {
            try request.validate()
            _ = try ServerOptions.address(of: request.server)
        } catch {
            return nil
        }
        self = request
    }

    private enum QuickOptionKind {
        case flag
        /// An option with a value; `unconditional` as `@Option(parsing: .unconditional)`.
        case value(unconditional: Bool)
    }

    /// The option `name` gives (`-v` is `--verbose`), as ``Once`` declares it.
    private static func quickOption(named name: String) -> (name: String, kind: QuickOptionKind)? {
        switch name {
        case "--timeout", "--max-age", "--epoch-wait", "--accuracy": (name, .value(unconditional: true))
        case "--gpsd-clock", "--min-mode", "--format", "--simulate": (name, .value(unconditional: false))
        case "--verbose", "-v": ("--verbose", .flag)
        default: nil
        }
    }

    /// Sets the option `name` to `text`, parsed as ArgumentParser parses it for ``Once``; false
    /// when it does not parse.
    private mutating func set(_ name: String, to text: String) -> Bool {
        switch name {
        case "--timeout": Self.parse(text).map { timeout = $0 } != nil
        case "--max-age": Self.parse(text).map { maxAge = $0 } != nil
        case "--epoch-wait": Self.parse(text).map { epochWait = $0 } != nil
        case "--accuracy": Self.parse(text).map { accuracy = $0 } != nil
        case "--gpsd-clock": Self.parse(text).map { gpsdClock = $0 } != nil
        case "--min-mode": Self.parse(text).map { minMode = $0 } != nil
        case "--format": (try? LocationFormat(parsing: text)).map { format = $0 } != nil  // does not parse: false, as said
        case "--simulate": Self.parse(text).map { simulate = $0 } != nil
        default: false
        }
    }

    private static func parse<Value: ExpressibleByArgument>(_ text: String) -> Value? {
        Value(argument: text)
    }
}
