import Foundation
import Testing
import TestSupport

/// The README's product table says what each library product links, and it does: for each row, a
/// program that imports that product alone is built (`Probes/PRODUCT/main.swift`, an executable
/// depending on the product's targets, as a user's executable depends on the product), and the C
/// libraries its ELF file needs itself (`readelf -d`, NEEDED) are those the row's "links" column
/// names, no more and no fewer. The libraries those load in turn (libgps loads libdbus, libdbus
/// libsystemd) are theirs, not the program's, as `ldd` would count them; neither are the
/// toolchain's (the Swift runtime and Foundation, libc, libm, libstdc++). GRDB, a Swift package
/// linked into the program, has no library of its own: a row that names it is held to the
/// program's symbols instead.
///
/// The programs are targets of the package when `SWIFT_GPS_FACADE_PRODUCT_PROBES=1`: scripts/test
/// sets it, and they are built with the tests, from the same compiled libraries. A plain
/// `swift test` builds them here, in `.build/product-links`, kept between runs (a first run builds
/// every library once more, without debug information, which NEEDED does not depend on).
@Suite("README: what each product links", .tags(.childProcess), .timeLimit(.minutes(20)),
       .enabled(if: ProductLinks.swift != nil && ProductLinks.readelf != nil, "needs swift and readelf"),
       .disabled(if: ThreadSanitizer.isRunning, "the plain run checks it; TSan adds its runtime to every program"))
struct ProductLinksTests {
    @Test func eachProductLinksWhatItsRowSays() async throws {
        let rows = try ProductLinks.tableRows(of: String(contentsOf: Repository.root.appendingPathComponent("README.md"), encoding: .utf8))
        try #require(!rows.isEmpty, "the README's product table")
        let libraries = try await ProductLinks.libraryProducts()
        #expect(rows.map(\.product).sorted() == libraries.sorted(), "one row per library product of Package.swift")

        let programs = try await ProductLinks.buildProbes(for: rows.map(\.product))
        for row in rows {
            let expected = try ProductLinks.libraries(named: row.links)
            let program = programs.appendingPathComponent(ProductLinks.probeName(row.product))
            let needed = try await ProductLinks.needed(by: program)
            #expect(needed == expected.sharedLibraries, """
                \(row.product) needs \(needed.sorted().joined(separator: ", ")), \
                where the README says "\(row.links)" (\(expected.sharedLibraries.sorted().joined(separator: ", ")))
                """)
            let grdb = try await ProductLinks.containsGRDB(program)
            #expect(grdb == expected.grdb,
                    "\(row.product): the README says \(expected.grdb ? "it links GRDB" : "nothing of GRDB")")
        }
    }

    /// The parser of the links column reads what the table writes, and refuses a library it does
    /// not know, so that a row cannot name one that is never checked.
    @Test func theLinksColumnIsReadWordByWord() throws {
        #expect(try ProductLinks.libraries(named: "nothing") == .init(sharedLibraries: [], grdb: false))
        #expect(try ProductLinks.libraries(named: "libgps") == .init(sharedLibraries: ["libgps"], grdb: false))
        #expect(try ProductLinks.libraries(named: "GRDB, SQLite, libxml2, zlib")
                == .init(sharedLibraries: ["libsqlite3", "libxml2", "libz"], grdb: true))
        #expect(try ProductLinks.libraries(named: "libsystemd and libxml2") == .init(sharedLibraries: ["libsystemd", "libxml2"], grdb: false))
        #expect(throws: ProductLinks.UnknownLibrary.self) { try ProductLinks.libraries(named: "libgps, libfoo") }
        #expect(throws: ProductLinks.UnknownLibrary.self) { try ProductLinks.libraries(named: "") }
    }

    /// The table's rows are read with their links column, and the table ends at its last row.
    @Test func theTableIsReadRowByRow() {
        let readme = """
            | product | what it gives | links |
            |---|---|---|
            | `LocationCore` | `LocationManager`, `Location` | nothing |
            | `Simulators` | replays (`a | b` is not a cell) | libgps, libxml2, zlib |

            | `NotARow` | after the table | libgps |
            """
        let rows = ProductLinks.tableRows(of: readme)
        #expect(rows.map(\.product) == ["LocationCore", "Simulators"])
        #expect(rows.map(\.links) == ["nothing", "libgps, libxml2, zlib"])
    }

    /// NEEDED entries are read from `readelf -d`, and the toolchain's are left out.
    @Test func neededEntriesAreReadFromReadelf() {
        let text = """
            Dynamic section at offset 0x2d8 contains 30 entries:
              Tag        Type                         Name/Value
             0x0000000000000001 (NEEDED)             Shared library: [libgps.so.28]
             0x0000000000000001 (NEEDED)             Shared library: [libswiftCore.so]
             0x0000000000000001 (NEEDED)             Shared library: [libFoundationEssentials.so]
             0x0000000000000001 (NEEDED)             Shared library: [libxml2.so.2]
             0x0000000000000001 (NEEDED)             Shared library: [libc.so.6]
             0x000000000000000c (INIT)               0x4000
            """
        #expect(ProductLinks.needed(inReadelfOutput: text) == ["libgps", "libxml2"])
    }
}

/// The pieces of ``ProductLinksTests``.
enum ProductLinks {
    /// `swift`, on the PATH.
    static let swift: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    /// `readelf`, where the tests run.
    static let readelf: String? = ["/usr/bin/readelf", "/bin/readelf"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Where the probe package and its build live, kept between runs.
    static let folder = Repository.root.appendingPathComponent(".build/product-links")

    /// A row of the README's product table: the product, and its "links" column as written.
    struct Row {
        var product: String
        var links: String
    }

    /// The rows of the table that starts `| product | what it gives | links |`, up to its end.
    static func tableRows(of readme: String) -> [Row] {
        var rows: [Row] = []
        var inTable = false
        for line in readme.components(separatedBy: "\n") {
            if line.hasPrefix("| product | what it gives | links |") {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { break }
            // The first cell and the last: the middle one may hold a `|` of its own in code.
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[1].hasPrefix("`") else { continue }  // the |---| line
            rows.append(Row(product: cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")), links: cells[cells.count - 2]))
        }
        return rows
    }

    /// The library products of Package.swift, from `swift package dump-package`.
    static func libraryProducts() async throws -> [String] {
        // A scratch path of its own: the one of `swift test` is locked while the tests run.
        let (status, output) = try await run(
            ["package", "dump-package", "--package-path", Repository.root.path,
             "--scratch-path", folder.appendingPathComponent("dump").path])
        try #require(status == 0, "swift package dump-package: \(output.suffix(1_000))")
        // The JSON follows whatever SwiftPM printed before it.
        let json = try #require(output.firstIndex(of: "{").map { output[$0...] })
        let manifest = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let products = try #require(manifest?["products"] as? [[String: Any]])
        return products.compactMap { product in
            guard let type = product["type"] as? [String: Any], type["library"] != nil else { return nil }
            return product["name"] as? String
        }
    }

    /// A library the table names that the test does not know.
    struct UnknownLibrary: Error, CustomStringConvertible {
        var word: String
        var description: String { "the links column names \"\(word)\", which is neither a C library the test knows nor GRDB" }
    }

    /// What a links column says a program links: shared libraries (by file name, without `.so`),
    /// and whether GRDB.
    struct Links: Equatable {
        var sharedLibraries: Set<String>
        var grdb: Bool
    }

    /// What a links column names: `nothing`, or a list of `libgps`, `libsystemd`, `libxml2`, `libmosquitto`,
    /// `libcurl`, `zlib`, `SQLite` and `GRDB` (a Swift package, linked into the program).
    static func libraries(named column: String) throws(UnknownLibrary) -> Links {
        let known = [
            "libgps": "libgps", "libsystemd": "libsystemd", "libxml2": "libxml2", "zlib": "libz", "SQLite": "libsqlite3",
            "libmosquitto": "libmosquitto", "libcurl": "libcurl",
        ]
        var links = Links(sharedLibraries: [], grdb: false)
        let words = column.replacingOccurrences(of: " and ", with: ",").split(separator: ",", omittingEmptySubsequences: false)
        for word in words.map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if word == "nothing" && words.count == 1 { continue }
            if word == "GRDB" {
                links.grdb = true
                continue
            }
            guard let library = known[word] else { throw UnknownLibrary(word: word) }
            links.sharedLibraries.insert(library)
        }
        return links
    }

    /// The program that imports `product`.
    static func probeName(_ product: String) -> String {
        "links-\(product)"
    }

    /// The environment variable that makes the programs targets of the package (Package.swift).
    static let probesVariable = "SWIFT_GPS_FACADE_PRODUCT_PROBES"

    /// The folder of the programs, one per product, each importing its product and nothing else
    /// (`Tests/LinkTests/Probes/PRODUCT/main.swift`). Built with the tests when the run's
    /// environment has `SWIFT_GPS_FACADE_PRODUCT_PROBES=1` (scripts/test sets it): then beside the
    /// test runner. Otherwise built here, the package with that variable, in a scratch path of its
    /// own (the one of `swift test` is locked while the tests run), kept between runs.
    static func buildProbes(for products: [String]) async throws -> URL {
        if ProcessInfo.processInfo.environment[probesVariable] == "1" {
            let programs = Repository.builtExecutable(probeName(products[0])).deletingLastPathComponent()
            let missing = products.filter { !FileManager.default.isExecutableFile(atPath: programs.appendingPathComponent(probeName($0)).path) }
            try #require(missing.isEmpty, """
                \(probesVariable)=1, but no program for \(missing.joined(separator: ", ")) in \(programs.path): \
                build the tests with that variable set too, as scripts/test does
                """)
            return programs
        }
        let scratch = folder.appendingPathComponent("build")
        for product in products {  // `swift build` builds one `--product` at a time: the last named
            let (status, output) = try await run(
                ["build", "--package-path", Repository.root.path, "--scratch-path", scratch.path, "-debug-info-format", "none",
                 "--product", probeName(product)],
                environment: [probesVariable: "1"])
            try #require(status == 0, "the program for \(product) does not build:\n\(output.suffix(3_000))")
        }
        return scratch.appendingPathComponent("debug")
    }

    /// The C libraries `program` needs itself (its NEEDED entries), the toolchain's left out.
    static func needed(by program: URL) async throws -> Set<String> {
        needed(inReadelfOutput: try await readelf(["-d", program.path]))
    }

    /// Whether `program` holds GRDB's code (a Swift symbol of module GRDB: `$s4GRDB...`).
    static func containsGRDB(_ program: URL) async throws -> Bool {
        try await readelf(["-sW", program.path]).contains("$s4GRDB")
    }

    /// The libraries of the NEEDED lines of `readelf -d`'s output, by file name without `.so` and
    /// version, except the Swift toolchain's and the C and C++ runtimes.
    static func needed(inReadelfOutput text: String) -> Set<String> {
        let toolchain = ["libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime"]
        let system = ["libc", "libm", "libstdc++", "libgcc_s", "libpthread", "libdl", "librt", "libutil", "ld-linux-x86-64", "ld-linux-aarch64"]
        var libraries: Set<String> = []
        for line in text.components(separatedBy: "\n") where line.contains("(NEEDED)") {
            guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { continue }
            let name = String(line[line.index(after: open)..<close].prefix { $0 != "." })
            if toolchain.contains(where: { name.hasPrefix($0) }) || system.contains(name) { continue }
            libraries.insert(name)
        }
        return libraries
    }

    // Both through `Command.run`, which awaits the child: a build of the probes takes minutes on a
    // fresh clone, and waiting for it with `Process.waitUntilExit()` held one of the test run's
    // two concurrency threads all that time.
    private static func readelf(_ arguments: [String]) async throws -> String {
        let result = try await Command.run(try #require(readelf), arguments)
        try #require(result.status == 0, "readelf \(arguments.joined(separator: " ")): \(result.error.joined(separator: "\n"))")
        return result.outputText
    }

    /// Runs `swift` with `arguments`: its status, and its output with its errors after it.
    private static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32, String) {
        let result = try await Command.run(try #require(swift), arguments, environment: environment)
        return (result.status, result.outputText + result.error.joined(separator: "\n"))
    }
}
