import Foundation

/// The table of exit codes in the README (the `| Code | Meaning |` table of "The commands"),
/// which both commands' help must print word for word.
public enum ReadmeExitCodes {
    /// The table's rows, in order: "0 success", "64 usage: the command line is wrong", ... as help
    /// prints them.
    public static func rows() throws -> [String] {
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        guard let header = lines.firstIndex(of: "| Code | Meaning |") else { return [] }
        return lines[(header + 2)...].prefix { $0.hasPrefix("| ") }.map { line in
            line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        }
    }
}
