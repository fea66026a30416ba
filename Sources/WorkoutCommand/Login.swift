import ArgumentParser
import CommandSupport
import Foundation
import Synchronization
import WorkoutUpload
#if canImport(Glibc)
import Glibc
#endif

/// `workout login`: an OAuth client's first tokens for `workout upload`, from the browser's
/// authorization-code flow, caught on a loopback redirect URI.
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Get the tokens `workout upload` needs for FitTrackee or Strava: allow the client in a browser, and they are written to --credentials.",
        discussion: """
            Prints the address to open (on standard output, alone on its line), then waits for the \
            browser to come back to http://127.0.0.1:PORT/callback, trades the code it brings for \
            tokens and writes them, private (0600), to --credentials, the file `workout upload \
            --credentials` reads. Register that redirect URI with the client first: in FitTrackee, \
            Settings, Apps (the whole URI, port included); in Strava, the application's \
            Authorization Callback Domain 127.0.0.1. The client's secret is read from \
            --client-secret-file, never from the command line. intervals.icu takes an API key \
            instead: no login.

            The browser must run on this machine (the redirect goes to its loopback address); on a \
            device without one, forward the port (ssh -L PORT:127.0.0.1:PORT device).

            Exit status: 0 when the tokens are written, 77 when the server or the user refused (the \
            line says which), 75 when no answer came before --timeout, after Ctrl-C or SIGTERM, or \
            when the server or the port could not be reached, 73 when --credentials cannot be \
            written, 64 for a destination without a login (intervals).
            """)

    @Option(help: "The service: fittrackee://HOST[:PORT], fittrackee+http://HOST[:PORT], strava, or strava+http://HOST:PORT.")
    var to: UploadTarget

    @Option(help: "The OAuth client's id (FitTrackee: Settings, Apps; Strava: My API Application).")
    var clientID: String

    @Option(help: "The file of the client's secret (its first line).", completion: .file())
    var clientSecretFile: String

    @Option(help: "Where to write the credentials (JSON, 0600).", completion: .file())
    var credentials: String

    @Option(help: "The loopback port of the redirect URI (0: any free one, said on the line).")
    var port: Int = 8765

    @Option(help: ArgumentHelp("How long to wait for the browser.", valueName: "seconds"))
    var timeout: Int = 600

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535, not \(port)") }
        guard timeout > 0 else { throw ValidationError("--timeout must be at least 1 second, not \(timeout)") }
    }

    func run() async throws {
        Interrupts.catchFromStart()
        let service: OAuthLogin.Service
        switch to.kind {
        case .fittrackee: service = .fitTrackee(url: to.url)
        case .strava: service = .strava(url: to.url)
        case .intervals:
            Output.error("workout login: intervals.icu takes an API key, not a login: put it in the credentials file (its first line), from intervals.icu's Settings, Developer Settings")
            throw ExitCode(.usage)
        }
        let secret: String
        do {
            secret = try String(contentsOfFile: clientSecretFile, encoding: .utf8)
                .split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        } catch {
            Output.error("workout login: cannot read the client secret file \(clientSecretFile): \((error as NSError).localizedDescription)")
            throw ExitCode(.noPermission)
        }
        guard !secret.isEmpty else {
            Output.error("workout login: the client secret file \(clientSecretFile) is empty")
            throw ExitCode(.noPermission)
        }
        let listener: RedirectListener
        do {
            listener = try RedirectListener(port: port)
        } catch {
            Output.error("workout login: \(error)")
            throw ExitCode(.temporaryFailure)
        }
        defer { listener.close() }
        let redirectURI = "http://127.0.0.1:\(listener.port)/callback"
        let login = OAuthLogin(service: service, clientID: clientID, clientSecret: secret, redirectURI: redirectURI)
        Output.error("Open this address in a browser on this machine, log in and allow the client \(clientID):")
        Output.line(login.authorizationURL)
        Output.error("Waiting for the browser at \(redirectURI) (up to \(timeout) s; Ctrl-C ends)...")

        let interrupts = Interrupts()
        let deadline = ContinuousClock.now + .seconds(timeout)
        let watcher = Task {
            await interrupts.wait()
            listener.stop()
        }
        // On a thread of its own: the wait blocks, and the signals' watcher needs the pool.
        let answer: String? = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: listener.waitForRedirect(path: "/callback", until: deadline)) }
        }
        watcher.cancel()
        guard let answer else {
            Output.error("workout login: no answer at \(redirectURI) \(listener.wasStopped ? "(interrupted)" : "within \(timeout) s"); nothing written")
            throw ExitCode(.temporaryFailure)
        }
        let tokens: OAuthCredentials
        do throws(UploadError) {
            tokens = try await login.credentials(fromRedirect: answer)
        } catch {
            Output.error("workout login: \(error)")
            if case .unreachable = error { throw ExitCode(.temporaryFailure) }
            throw ExitCode(.noPermission)
        }
        do {
            try tokens.write(to: credentials)
        } catch {
            Output.error("workout login: cannot write the credentials to \(credentials): \((error as NSError).localizedDescription)")
            throw ExitCode(.cannotCreate)
        }
        let expiry = tokens.expiresAt.map { "; the access token is good until \($0.formatted(.iso8601)) and is refreshed from then on" } ?? ""
        Output.error("Logged in: the tokens are in \(credentials) (0600)\(expiry). Upload with: workout upload --to \(to.name) --credentials \(credentials)")
    }
}

/// A listener on 127.0.0.1 for one browser's return to a redirect URI: it answers each request,
/// and hands back the first to `path` (its request target, with the query).
final class RedirectListener: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The port it listens on (the one asked, or the free one the kernel gave for 0).
    let port: Int
    private let descriptor: Int32
    private let stopped = Atomic<Bool>(false)

    init(port asked: Int) throws(Failure) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "cannot open a socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        _ = setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))  // a restart's old socket in TIME_WAIT
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(asked).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socket, 8) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(socket)
            throw Failure(description: "cannot listen on 127.0.0.1:\(asked) (\(reason)): choose another port with --port, and register its redirect URI")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        descriptor = socket
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether ``stop()`` ended the wait.
    var wasStopped: Bool { stopped.load(ordering: .acquiring) }

    /// Ends ``waitForRedirect(path:until:)`` within a fifth of a second.
    func stop() {
        stopped.store(true, ordering: .releasing)
    }

    func close() {
        Glibc.close(descriptor)
    }

    /// Answers requests until one comes to `path`, and returns its target; `nil` at `deadline`
    /// or after ``stop()``. Blocks its thread (the command has nothing else to do meanwhile),
    /// looking at the deadline and the stop five times a second.
    func waitForRedirect(path: String, until deadline: ContinuousClock.Instant) -> String? {
        while !wasStopped, ContinuousClock.now < deadline {
            var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&watched, 1, 200) > 0 else { continue }
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { continue }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)  // best effort: the command starts no child meanwhile
            defer { Glibc.close(connection) }
            guard let target = Self.requestTarget(from: connection) else { continue }
            let ours = target == path || target.hasPrefix(path + "?")
            let page = ours
                ? "<!doctype html><title>workout login</title><p>Received. Go back to the terminal: it says whether the login worked.</p>\n"
                : "<!doctype html><title>Not found</title><p>Not the redirect URI of workout login.</p>\n"
            let reply = "HTTP/1.1 \(ours ? "200 OK" : "404 Not Found")\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(page.utf8.count)\r\nConnection: close\r\n\r\n" + page
            _ = reply.utf8CString.withUnsafeBufferPointer { send(connection, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }  // the browser may have gone: the target is what counts
            if ours { return target }
        }
        return nil
    }

    /// The target of the request line (`GET /callback?code=... HTTP/1.1`), read within 5 s and
    /// 16 KiB; `nil` for anything else.
    private static func requestTarget(from connection: Int32) -> String? {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))  // a silent client ends at the read's timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 16_384, !received.contains(0x0A) {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        guard let end = received.firstIndex(of: 0x0A) else { return nil }
        let line = String(decoding: received[..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET", parts[2].hasPrefix("HTTP/") else { return nil }
        return String(parts[1])
    }
}
