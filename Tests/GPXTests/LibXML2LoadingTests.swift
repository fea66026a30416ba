@testable import GPX
import Testing

/// libxml2 is opened at the first parse (`dlopen`), not by the loader at start: where it cannot be
/// opened, or lacks a function the reader calls, the library says so as an error of that parse,
/// naming the file, the function and the package to install, and the host program goes on.
@Suite("libxml2 that cannot be loaded")
struct LibXML2LoadingTests {
    @Test func aLibraryThatIsNotThereIsAnErrorNamingItAndThePackage() throws {
        guard case let .failure(failure) = LibXML2.load("libxml2-not-installed.so.2") else {
            Issue.record("a library that does not exist was loaded")
            return
        }
        #expect(failure.reason.hasPrefix("libxml2-not-installed.so.2, which reads GPX and TCX files, could not be loaded ("))
        #expect(failure.reason.hasSuffix("install libxml2 (Debian and Ubuntu: apt-get install libxml2; Fedora: dnf install libxml2)"))
    }

    /// zlib is a real library without libxml2's functions: the first one looked for is named.
    @Test func aLibraryWithoutTheFunctionsNamesTheFirstMissing() throws {
        guard case let .failure(failure) = LibXML2.load("libz.so.1") else {
            Issue.record("zlib was taken for libxml2")
            return
        }
        #expect(failure.reason.hasPrefix("libz.so.1 has no xmlInitParser, which reading GPX and TCX needs"))
    }

    @Test func theInstalledLibraryLoads() throws {
        guard case .success = LibXML2.load("libxml2.so.2") else {
            Issue.record("libxml2.so.2 did not load here")
            return
        }
    }
}
