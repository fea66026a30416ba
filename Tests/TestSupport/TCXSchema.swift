import Foundation

/// Garmin's Training Center Database v2 schema, which `scripts/install-tcx-schema` takes from
/// Debian's pytrainer package into `.cache/tcx-schema/` (or the file `TCX_SCHEMA` names), and
/// `xmllint` (Debian libxml2-utils) to validate TCX files against it, for the tests that hold
/// our TCX export to it.
public enum TCXSchema {
    /// The schema file, if there is one.
    public static let path: String? = {
        let candidates: [String?] = [
            ProcessInfo.processInfo.environment["TCX_SCHEMA"],
            Repository.root.appendingPathComponent(".cache/tcx-schema/TrainingCenterDatabasev2.xsd").path,
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.isReadableFile(atPath: $0) }
    }()

    /// Whether files can be validated: the schema and xmllint are there.
    public static var isAvailable: Bool { path != nil && Repository.hasProgram("xmllint") }

    /// Why a test that needs them skipped.
    public static let missing = "the TCX v2 schema or xmllint is missing: run scripts/install-tcx-schema (Debian's pytrainer package ships the schema) and install libxml2-utils"

    /// What `xmllint --noout --schema SCHEMA FILE` says of `file`: whether it validates, and its messages.
    public static func validate(_ file: String) async throws -> (valid: Bool, messages: String) {
        guard let path else { throw FITPeers.PeerError(description: missing) }
        let result = try await Command.run("xmllint", ["--noout", "--schema", path, file])
        return (result.status == 0, ([result.outputText] + result.error).joined(separator: "\n"))
    }
}
