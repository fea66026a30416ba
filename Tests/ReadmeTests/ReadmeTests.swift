import Foundation
import Testing

/// Every Swift example in the README compiles, exactly as printed: each ```swift block must appear,
/// line for line (indentation aside), in a file the package compiles (a test, or the example
/// program under Examples/), where the build type-checks it and a test runs it.
@Suite("README examples")
struct ReadmeTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The README's ```swift blocks, each with the line it starts on.
    static func swiftBlocks(in text: String) -> [(line: Int, code: [String])] {
        var blocks: [(line: Int, code: [String])] = []
        var current: (line: Int, code: [String])?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = (index + 1, [])
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(current!)
                current = nil
            } else if current != nil {
                current!.code.append(line)
            }
        }
        return blocks
    }

    /// `lines` without trailing white space, blank lines and their common indentation.
    static func normalized(_ lines: [String]) -> [String] {
        let trimmed = lines.map { String($0.reversed().drop(while: \.isWhitespace).reversed()) }.filter { !$0.isEmpty }
        let indent = trimmed.map { $0.prefix(while: { $0 == " " }).count }.min() ?? 0
        return trimmed.map { String($0.dropFirst(indent)) }
    }

    /// The Swift files the package compiles for its examples: the tests (but these, whose strings
    /// quote examples) and Examples/.
    static func compiledSources() throws -> [(path: String, lines: [String])] {
        var files: [(path: String, lines: [String])] = []
        for folder in ["Tests", "Examples"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == "swift" && !url.path.contains("/Tests/ReadmeTests/") {
                files.append((url.path, normalized(try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n"))))
            }
        }
        return files
    }

    /// Whether `block` (normalized) appears in `file` as consecutive lines, whatever their common indentation.
    static func contains(_ file: [String], _ block: [String]) -> Bool {
        guard let first = block.first, !block.isEmpty else { return true }
        for start in file.indices where file[start].hasSuffix(first) && start + block.count <= file.count {
            let candidate = Array(file[start..<(start + block.count)])
            let indent = candidate[0].count - first.count
            guard indent >= 0 else { continue }
            let pad = String(repeating: " ", count: indent)
            if zip(candidate, block).allSatisfy({ $0 == pad + $1 }) { return true }
        }
        return false
    }

    /// How the README's manifest snippets begin, which are checked otherwise (a manifest cannot be
    /// compiled as a test): against Package.swift, and by building a package of them
    /// (``RecordingsBesideTestsTests``).
    static let manifestMarker = "// Package.swift of your package"

    /// Whether a README block is a manifest snippet.
    static func isManifest(_ block: (line: Int, code: [String])) -> Bool {
        block.code.first?.hasPrefix(manifestMarker) == true
    }

    @Test func everySwiftBlockIsCompiledAsPrinted() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = Self.swiftBlocks(in: readme).filter { !Self.isManifest($0) }
        #expect(blocks.count >= 8)
        let sources = try Self.compiledSources()
        for block in blocks {
            let code = Self.normalized(block.code)
            let home = sources.first { Self.contains($0.lines, code) }
            #expect(home != nil, "README.md:\(block.line): this example is not in any compiled file as printed:\n\(code.joined(separator: "\n"))")
        }
    }

    /// The manifest snippets name this package and products it has.
    @Test func theManifestSnippetsNameRealProducts() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let snippets = Self.swiftBlocks(in: readme).filter(Self.isManifest).map { $0.code.joined(separator: "\n") }
        #expect(snippets.count == 2, "the dependency, and the recordings beside the tests")
        #expect(manifest.contains(#"name: "swift-gps-facade""#))
        for snippet in snippets {
            let products = snippet.matches(of: /\.product\(name: "([^"]+)", package: "([^"]+)"\)/)
            #expect(!products.isEmpty)
            for product in products {
                #expect(product.output.2 == "swift-gps-facade")
                #expect(manifest.contains(#".library(name: "\#(product.output.1)""#), "no library product \(product.output.1)")
            }
        }
        #expect(snippets.first?.contains(#".package(url: "https://github.com/swift-gps-facade/swift-gps-facade""#) == true)
    }

    @Test func theMatcherFindsABlockAtAnyIndentationOnly() {
        let file = Self.normalized(["enum E {", "    static func f() {", "        let a = 1", "        print(a)", "    }", "}"])
        #expect(Self.contains(file, ["let a = 1", "print(a)"]))
        #expect(!Self.contains(file, ["let a = 1", "print(b)"]))
        #expect(!Self.contains(file, ["let a = 1", "    print(a)"]))
    }
}
