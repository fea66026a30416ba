import Foundation
import Testing

/// Every Swift example in the API reference compiles, exactly as printed, as the README's do
/// (``ReadmeTests``): each ```swift block of a `///` comment in Sources/, and of a DocC article
/// (Sources/*/*.docc/*.md), must appear, line for line (indentation aside), in a file the package
/// compiles. Tests/DocExamplesTests holds them, each in the code that gives it what it names (a
/// `store`, a `fix`, a `clock`...); the build type-checks them, and the tests there run those that
/// need nothing outside the process.
@Suite("API reference examples")
struct DocExamplesTests {
    /// The fenced blocks of the `///` comments in `text`, each with the line it starts on and its
    /// language (what follows the opening fence), the comment marker and one space taken off.
    static func docCommentBlocks(in text: String) -> [(line: Int, language: String, code: [String])] {
        var blocks: [(line: Int, language: String, code: [String])] = []
        var current: (line: Int, language: String, code: [String])?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("///") else {
                current = nil  // a block the comment leaves open is no block
                continue
            }
            var body = trimmed.dropFirst(3)
            if body.first == " " { body = body.dropFirst() }
            let fence = body.trimmingCharacters(in: .whitespaces)
            if current == nil, fence.hasPrefix("```") {
                current = (index + 1, String(fence.dropFirst(3)), [])
            } else if let open = current, fence == "```" {
                blocks.append(open)
                current = nil
            } else {
                current?.code.append(String(body))
            }
        }
        return blocks
    }

    /// Every `.swift` file under Sources/, and every DocC article.
    static func sources() throws -> (swift: [URL], articles: [URL]) {
        var swift: [URL] = [], articles: [URL] = []
        let base = ReadmeTests.root.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return ([], []) }
        for case let url as URL in walker {
            if url.pathExtension == "swift" { swift.append(url) }
            if url.pathExtension == "md", url.deletingLastPathComponent().pathExtension == "docc" { articles.append(url) }
        }
        return (swift.sorted { $0.path < $1.path }, articles.sorted { $0.path < $1.path })
    }

    /// `path` from the repository's root.
    static func relative(_ url: URL) -> String {
        String(url.path.dropFirst(ReadmeTests.root.path.count + 1))
    }

    @Test func everyDocCommentExampleIsCompiledAsPrinted() throws {
        let compiled = try ReadmeTests.compiledSources()
        var checked = 0
        for file in try Self.sources().swift {
            for block in Self.docCommentBlocks(in: try String(contentsOf: file, encoding: .utf8)) {
                // DocC takes a block without a language for Swift: say which it is.
                #expect(!block.language.isEmpty, "\(Self.relative(file)):\(block.line): say the example's language (```swift)")
                guard block.language == "swift" || block.language.isEmpty else { continue }
                let code = ReadmeTests.normalized(block.code)
                checked += 1
                #expect(compiled.contains { ReadmeTests.contains($0.lines, code) },
                        "\(Self.relative(file)):\(block.line): this example is not in any compiled file as printed:\n\(code.joined(separator: "\n"))")
            }
        }
        #expect(checked >= 90, "the `///` comments hold about a hundred Swift examples")
    }

    @Test func everyDocCArticleExampleIsCompiledAsPrinted() throws {
        let compiled = try ReadmeTests.compiledSources()
        var checked = 0
        for article in try Self.sources().articles {
            for block in ReadmeTests.swiftBlocks(in: try String(contentsOf: article, encoding: .utf8)) {
                let code = ReadmeTests.normalized(block.code)
                checked += 1
                #expect(compiled.contains { ReadmeTests.contains($0.lines, code) },
                        "\(Self.relative(article)):\(block.line): this example is not in any compiled file as printed:\n\(code.joined(separator: "\n"))")
            }
        }
        #expect(checked >= 15, "the DocC articles hold about twenty Swift examples")
    }

    @Test func theExtractorTakesTheBlocksOfDocCommentsOnly() {
        let text = """
            /// Reads a thing.
            ///
            /// ```swift
            /// let thing = Thing()
            ///     .read()
            /// ```
            // ```swift
            // not = a doc comment
            // ```
            ///
            ///   ```xml
            ///   <thing/>
            ///   ```
            /// ```swift
            /// left(open)
            func thing() {}
            """
        let blocks = Self.docCommentBlocks(in: text)
        #expect(blocks.map(\.language) == ["swift", "xml"])
        #expect(blocks.first?.code == ["let thing = Thing()", "    .read()"])
        #expect(blocks.first?.line == 3)
    }
}
