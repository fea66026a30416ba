// The only Swift file that touches libcurl's C API. Everything outside sees HTTPRequest,
// HTTPResponse and HTTPTransferError: the publisher's HTTP destinations and the workout uploads.
//
// Why libcurl, and not FoundationNetworking or async-http-client:
// - FoundationNetworking's URLSession is itself built on libcurl (its multi interface), and brings
//   the whole of Foundation with it (and ICU, about 40 MB), which `locate` does not otherwise link:
//   the same C library, under a heavier layer whose Linux port lags Darwin's (timeouts, TLS options).
// - async-http-client stands on swift-nio, swift-nio-ssl (BoringSSL compiled from source) and
//   swift-nio-http2: several minutes more of every clean CI build, for one POST at a time.
// - libcurl is on every Linux already (Debian libcurl4-openssl-dev), uses the system's OpenSSL and
//   certificate store, and its error buffer names the certificate problem when TLS fails.
//
// libcurl's traps, and where they are handled:
// - curl_easy_setopt and curl_easy_getinfo are variadic: one shim per argument type (shim.h).
// - the easy interface blocks its thread for the whole exchange: the multi interface runs here on
//   a thread of our own (as the libgps reader has its own), never on a Swift concurrency thread;
//   curl_multi_wakeup(3) tells it of new requests and cancellations.
// - a multi handle is for one thread: only the loop thread calls into it, except
//   curl_multi_wakeup, which is made for other threads, and curl_multi_cleanup, once no thread
//   runs the loop (the handle's owner's deinit).
// - timeouts are libcurl's own (CURLOPT_TIMEOUT_MS, CURLOPT_CONNECTTIMEOUT_MS): curl_multi_poll
//   waits no longer than its next timer, so an exchange that times out returns on time. DNS runs
//   on libcurl's resolver thread (AsynchDNS), not in the loop.
// - signals: CURLOPT_NOSIGNAL, as a multi-threaded program needs.
// - curl_global_init(3) runs once, before the first handle.

internal import CCurl
import GPSCore
#if canImport(Glibc)
import Glibc
#endif

/// Sends HTTP requests through libcurl's multi interface on a thread of its own; many may be in
/// flight at once, and connections are kept open between them.
package final class CurlClient: Sendable {
    private let core: Core

    package init() {
        _ = Self.globalInit
        core = Core()
        Threads.detach { [core] in core.run() }
    }

    deinit {
        // No request is in flight: each holds the client until it is answered.
        core.close()
    }

    /// curl_global_init(3), once per process.
    private static let globalInit: Void = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    /// Sends `request` and returns the server's answer, whatever its status.
    ///
    /// Throws ``HTTPTransferError`` when no answer came (the server could not be reached, TLS
    /// failed, the timeout expired), and `CancellationError` when the task is cancelled (the
    /// exchange is abandoned at once). The corresponding C function is `curl_multi_perform(3)`.
    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard core.multi != nil else {
            throw HTTPTransferError(kind: .other, code: Int32(bitPattern: CURLE_OUT_OF_MEMORY.rawValue), name: "out of memory", detail: "curl_multi_init failed", url: request.url)
        }
        let id = core.newID()
        let result: Result<HTTPResponse, any Error> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                core.submit(id, request, continuation)
            }
        } onCancel: {
            core.cancel(id)
        }
        return try result.get()
    }
}

/// What the caller and the loop thread share: the multi handle, and the requests by their ids.
private final class Core: @unchecked Sendable {
    // @unchecked: `multi` is used by the loop thread alone (curl_multi_wakeup excepted, which
    // libcurl makes for other threads); everything else is behind `state`'s lock.
    typealias Continuation = CheckedContinuation<Result<HTTPResponse, any Error>, Never>

    /// Where a request stands. Whoever takes its entry out of `requests` (under the lock)
    /// resumes its continuation, once, after the lock is released.
    enum Request: Sendable {
        /// Cancelled before it was submitted.
        case cancelledEarly
        /// Submitted, not yet picked up by the loop.
        case queued(HTTPRequest, Continuation)
        /// Handed to libcurl.
        case running(Continuation)
    }

    struct State: Sendable {
        var nextID: UInt64 = 0
        var requests: [UInt64: Request] = [:]
        /// Submitted requests, oldest first, for the loop to start.
        var starting: [UInt64] = []
        /// Running requests to abandon.
        var cancelling: [UInt64] = []
        var closing = false
    }

    /// `nil` when libcurl could not make one (out of memory): every request then fails.
    let multi: UnsafeMutableRawPointer?
    let state = Locked(State())

    init() {
        multi = curl_multi_init()
    }

    deinit {
        if let multi { curl_multi_cleanup(multi) }
    }

    func newID() -> UInt64 {
        state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
    }

    func submit(_ id: UInt64, _ request: HTTPRequest, _ continuation: Continuation) {
        let cancelled = state.withLock { state in
            if case .cancelledEarly = state.requests[id] {
                state.requests[id] = nil
                return true
            }
            state.requests[id] = .queued(request, continuation)
            state.starting.append(id)
            return false
        }
        if cancelled {
            continuation.resume(returning: .failure(CancellationError()))
        } else {
            curl_multi_wakeup(multi)
        }
    }

    func cancel(_ id: UInt64) {
        enum Action { case none, resume(Continuation), wake }
        let action: Action = state.withLock { state in
            switch state.requests[id] {
            case nil:
                state.requests[id] = .cancelledEarly
                return .none
            case let .queued(_, continuation):
                state.requests[id] = nil
                return .resume(continuation)
            case .running:
                state.cancelling.append(id)
                return .wake
            case .cancelledEarly:
                return .none
            }
        }
        switch action {
        case .none: break
        case let .resume(continuation): continuation.resume(returning: .failure(CancellationError()))
        case .wake: curl_multi_wakeup(multi)
        }
    }

    func close() {
        state.withLock { $0.closing = true }
        curl_multi_wakeup(multi)
    }

    /// Takes the request out and resumes its continuation with `result`, unless a cancellation
    /// took it first.
    func finish(_ id: UInt64, _ result: Result<HTTPResponse, any Error>) {
        let continuation: Continuation? = state.withLock { state in
            guard case let .running(continuation) = state.requests[id] else { return nil }
            state.requests[id] = nil
            return continuation
        }
        continuation?.resume(returning: result)
    }

    /// The loop: starts what was submitted, abandons what was cancelled, drives the transfers and
    /// answers the finished ones, then sleeps in curl_multi_poll until a socket, a timer or a wakeup.
    func run() {
        guard let multi else { return }
        var transfers: [UInt64: Transfer] = [:]
        while true {
            let (starting, cancelling, closing) = state.withLock { state in
                var starting: [(UInt64, HTTPRequest)] = []
                for id in state.starting {
                    if case let .queued(request, continuation) = state.requests[id] {
                        starting.append((id, request))
                        state.requests[id] = .running(continuation)
                    }
                }
                state.starting.removeAll()
                defer { state.cancelling.removeAll() }
                return (starting, state.cancelling, state.closing)
            }
            for id in cancelling {
                if let transfer = transfers.removeValue(forKey: id) {
                    curl_multi_remove_handle(multi, transfer.easy)
                }
                let continuation: Continuation? = state.withLock { state in
                    guard case let .running(continuation) = state.requests[id] else { return nil }
                    state.requests[id] = nil
                    return continuation
                }
                continuation?.resume(returning: .failure(CancellationError()))
            }
            for (id, request) in starting {
                do {
                    let transfer = try Transfer(id: id, request: request)
                    let added = curl_multi_add_handle(multi, transfer.easy)
                    guard added == CURLM_OK else {
                        throw HTTPTransferError(
                            kind: .other, code: added.rawValue,
                            name: String(cString: curl_multi_strerror(added)), detail: "", url: transfer.displayURL)
                    }
                    transfers[id] = transfer
                } catch {
                    finish(id, .failure(error))
                }
            }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let code = message.pointee.data.result
                var pointer: UnsafeMutableRawPointer?
                _ = ccurl_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer)
                let id = UInt64(UInt(bitPattern: pointer))
                curl_multi_remove_handle(multi, easy)
                guard let transfer = transfers.removeValue(forKey: id) else { continue }
                finish(id, transfer.result(code))
            }
            if closing && transfers.isEmpty { return }
            curl_multi_poll(multi, nil, 0, 60_000, nil)
        }
    }
}

/// One exchange in libcurl's hands: the easy handle and what it points at (the header list, the
/// error buffer, the body received), kept until the exchange ends. Used by the loop thread only.
private final class Transfer {
    let easy: UnsafeMutableRawPointer
    /// The URL without its query, for messages.
    let displayURL: String
    private var headers: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    fileprivate var body: [UInt8] = []
    fileprivate let bodyLimit: Int
    /// The answer's header fields; a new status line (a redirect's, a `100 Continue`) starts them again.
    fileprivate var responseHeaders: [(name: String, value: String)] = []

    init(id: UInt64, request: HTTPRequest) throws {
        guard let easy = curl_easy_init() else {
            throw HTTPTransferError(kind: .other, code: Int32(bitPattern: CURLE_OUT_OF_MEMORY.rawValue), name: "out of memory", detail: "curl_easy_init failed", url: request.url)
        }
        self.easy = easy
        bodyLimit = max(0, request.responseLimit)
        displayURL = String(request.url.prefix { $0 != "?" })
        errorBuffer = .allocate(capacity: ccurl_error_size())
        errorBuffer.initialize(repeating: 0, count: ccurl_error_size())
        for line in request.headers + ["Expect:"] {
            headers = curl_slist_append(headers, line)
        }
        var code = CURLE_OK
        func set(_ result: CURLcode) {
            if code == CURLE_OK { code = result }
        }
        set(ccurl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        set(ccurl_setopt_pointer(easy, CURLOPT_PRIVATE, UnsafeMutableRawPointer(bitPattern: UInt(id))))
        set(ccurl_setopt_string(easy, CURLOPT_URL, request.url))
        set(ccurl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        if request.method == "GET" {
            set(ccurl_setopt_long(easy, CURLOPT_HTTPGET, 1))
        } else {
            set(ccurl_setopt_long(easy, CURLOPT_POST, 1))
            set(ccurl_setopt_post_size(easy, Int64(request.body.count)))
            // Copied by libcurl; an empty body still needs a valid pointer.
            set((request.body.isEmpty ? [0] : request.body).withUnsafeBytes { body in
                ccurl_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: body.baseAddress))
            })
            if request.method != "POST" { set(ccurl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method)) }
        }
        set(ccurl_setopt_slist(easy, CURLOPT_HTTPHEADER, headers))
        set(ccurl_setopt_string(easy, CURLOPT_USERAGENT, "swift-gps-facade"))
        set(ccurl_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout)))
        set(ccurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout)))
        if let login = request.login {
            set(ccurl_setopt_long(easy, CURLOPT_HTTPAUTH, ccurl_auth_basic()))
            set(ccurl_setopt_string(easy, CURLOPT_USERNAME, login.user))
            set(ccurl_setopt_string(easy, CURLOPT_PASSWORD, login.password))
        }
        if let caFile = request.tls.caFile { set(ccurl_setopt_string(easy, CURLOPT_CAINFO, caFile)) }
        if let certificate = request.tls.certificateFile { set(ccurl_setopt_string(easy, CURLOPT_SSLCERT, certificate)) }
        if let key = request.tls.keyFile { set(ccurl_setopt_string(easy, CURLOPT_SSLKEY, key)) }
        set(ccurl_setopt_write_callback(easy) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            let room = max(0, transfer.bodyLimit - transfer.body.count)
            if let data, room > 0 {
                transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(length, room)))
            }
            return length  // past the limit the rest is dropped, not an error
        })
        set(ccurl_setopt_pointer(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque()))
        set(ccurl_setopt_header_callback(easy) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            guard let data else { return length }
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            if line.hasPrefix("HTTP/") {
                transfer.responseHeaders.removeAll()
            } else if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].filter { !$0.isWhitespace }.lowercased()
                let value = line[line.index(after: colon)...].drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
                transfer.responseHeaders.append((name, String(value)))
            }
            return length
        })
        set(ccurl_setopt_pointer(easy, CURLOPT_HEADERDATA, Unmanaged.passUnretained(self).toOpaque()))
        guard code == CURLE_OK else {
            throw error(code)
        }
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headers)
        errorBuffer.deallocate()
    }

    /// The exchange's outcome, from libcurl's code for it.
    func result(_ code: CURLcode) -> Result<HTTPResponse, any Error> {
        guard code == CURLE_OK else { return .failure(error(code)) }
        var status = 0
        _ = ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var redirect: UnsafeMutableRawPointer?
        _ = ccurl_getinfo_pointer(easy, CURLINFO_REDIRECT_URL, &redirect)
        return .success(HTTPResponse(
            status: status, body: body, redirect: redirect.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) },
            headers: responseHeaders))
    }

    private func error(_ code: CURLcode) -> HTTPTransferError {
        var uploaded: Int64 = 0
        _ = ccurl_getinfo_off(easy, CURLINFO_SIZE_UPLOAD_T, &uploaded)
        return HTTPTransferError(
            kind: Self.kind(of: code), code: Int32(bitPattern: code.rawValue), name: String(cString: curl_easy_strerror(code)),
            detail: String(cString: errorBuffer), url: displayURL, bodySent: uploaded > 0)
    }

    private static func kind(of code: CURLcode) -> HTTPTransferError.Kind {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            .timeout
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT, CURLE_SEND_ERROR,
            CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3,
            CURLE_WEIRD_SERVER_REPLY, CURLE_AGAIN:
            .connection
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CRL_BADFILE,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
            CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED, CURLE_SSL_SHUTDOWN_FAILED:
            .tls
        case CURLE_LOGIN_DENIED, CURLE_AUTH_ERROR:
            .login
        default:
            .other
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
