import ArgumentParser
import LocationFacade

/// Options every command that talks to gpsd shares.
public struct ServerOptions: ParsableArguments {
    public init() {}

    @Argument(help: ArgumentHelp(
        "The gpsd to use, as [server[:port[:device]]].",
        discussion: "Defaults to localhost:2947 and every device.",
        valueName: "server[:port[:device]]"))
    public var server: String?

    public func address() throws -> GPSDAddress {
        try Self.address(of: server)
    }

    /// The gpsd `server` names (localhost:2947 and every device when nil); a
    /// `ValidationError` says what is wrong with it.
    public static func address(of server: String?) throws(ValidationError) -> GPSDAddress {
        do {
            return try GPSDAddress(parsing: server ?? "")
        } catch {
            throw ValidationError(error.description)
        }
    }

    public func validate() throws {
        _ = try address()
    }
}
