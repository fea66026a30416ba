import ArgumentParser
import LocationFacade

/// Options every command that talks to gpsd shares.
package struct ServerOptions: ParsableArguments {
    package init() {}

    @Argument(help: ArgumentHelp(
        "The gpsd to use, as [server[:port[:device]]].",
        discussion: "Defaults to localhost:2947 and every device.",
        valueName: "server[:port[:device]]"))
    package var server: String?

    package func address() throws -> GPSDAddress {
        try Self.address(of: server)
    }

    /// The gpsd `server` names (localhost:2947 and every device when nil); a
    /// `ValidationError` says what is wrong with it.
    package static func address(of server: String?) throws(ValidationError) -> GPSDAddress {
        do {
            return try GPSDAddress(parsing: server ?? "")
        } catch {
            throw ValidationError(error.description)
        }
    }

    package func validate() throws {
        _ = try address()
    }
}
