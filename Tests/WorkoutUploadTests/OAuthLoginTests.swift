import Foundation
import Testing
import TestSupport
@testable import WorkoutUpload

/// `OAuthLogin` without a server: PKCE's challenge held to RFC 7636's example and SHA-256 to
/// FIPS 180-4's and Python's hashlib, the authorization pages' addresses, and every answer to the
/// redirect URI it refuses before asking the server anything. The code's trade at a real
/// FitTrackee is `Stage.Alone.FitTrackeeTests.LoginCommandTests`.
@Suite struct OAuthLoginTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func sha256GivesFIPSExamplesDigests() {
        #expect(Self.hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Self.hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// Around the padding's edges (55, 56, 63, 64 bytes: one block or two) and past a few blocks.
    @Test func sha256AgreesWithPythonsHashlib() async throws {
        let lengths = [1, 31, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000]
        let peer = try await Command.run("/usr/bin/python3", ["-c", """
            import hashlib
            for n in [\(lengths.map(String.init).joined(separator: ", "))]:
                print(hashlib.sha256(bytes((i * 7 + 3) % 256 for i in range(n))).hexdigest())
            """])
        let expected = peer.outputText.split(separator: "\n").map(String.init)
        try #require(expected.count == lengths.count, "python3 said: \(peer.error)")
        for (length, digest) in zip(lengths, expected) {
            #expect(Self.hex(SHA256.hash((0..<length).map { UInt8(($0 * 7 + 3) % 256) })) == digest, "\(length) bytes")
        }
    }

    /// RFC 7636, appendix B: the verifier's S256 challenge.
    @Test func theChallengeIsRFC7636s() {
        #expect(OAuthLogin.challenge(of: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    /// A fresh state and verifier each login, of the length RFC 7636 asks of a verifier (43 to 128).
    @Test func eachLoginHasItsOwnStateAndVerifier() {
        let logins = (0..<3).map { _ in OAuthLogin(service: .strava(url: "https://www.strava.com"), clientID: "1", clientSecret: "s", redirectURI: "http://127.0.0.1:1/callback") }
        #expect(Set(logins.map(\.state)).count == 3 && Set(logins.map(\.verifier)).count == 3)
        #expect(logins.allSatisfy { (43...128).contains($0.verifier.count) && $0.verifier.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } })
    }

    @Test func fitTrackeesPageAsksForTheCodeWithPKCE() {
        let login = OAuthLogin(service: .fitTrackee(url: "https://ft.example/"), clientID: "id 1", clientSecret: "s",
                               redirectURI: "http://127.0.0.1:8765/callback", state: "st", verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        let page = login.authorizationURL
        #expect(page.hasPrefix("https://ft.example/profile/apps/authorize?"))
        #expect(OAuthLogin.queryFields(of: page) == [
            "client_id": "id 1", "redirect_uri": "http://127.0.0.1:8765/callback", "response_type": "code",
            "scope": "workouts:read workouts:write profile:read", "state": "st",
            "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256",
        ])
    }

    @Test func stravasPageAsksToUpload() {
        let login = OAuthLogin(service: .strava(url: "https://www.strava.com"), clientID: "123", clientSecret: "s",
                               redirectURI: "http://127.0.0.1:8765/callback", state: "st", verifier: "v")
        #expect(login.authorizationURL.hasPrefix("https://www.strava.com/oauth/authorize?"))
        #expect(OAuthLogin.queryFields(of: login.authorizationURL) == [
            "client_id": "123", "redirect_uri": "http://127.0.0.1:8765/callback", "response_type": "code",
            "approval_prompt": "auto", "scope": "activity:write,activity:read_all", "state": "st",
        ])
    }

    /// What comes back to the redirect URI and is refused there, each saying what to do: the
    /// server is not asked (the URL below reaches nothing).
    @Test(arguments: [
        ("/callback?error=access_denied&state=st", "did not allow the client 1 (access_denied): log in again and allow it"),
        ("/callback?code=c&state=other", "is not this login's (its state differs)"),
        ("/callback?state=st", "carries no code"),
        ("/callback?state=st&code=c&scope=read,activity:read_all", "allowed read,activity:read_all but not activity:write"),
    ])
    func refusedAnswers(redirect: String, reason: String) async {
        let login = OAuthLogin(service: .strava(url: "http://127.0.0.1:9"), clientID: "1", clientSecret: "s",
                               redirectURI: "http://127.0.0.1:8765/callback", state: "st", verifier: "v")
        do {
            _ = try await login.credentials(fromRedirect: redirect)
            Issue.record("\(redirect) was taken")
        } catch {
            guard case let .refusedCredentials(said) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(said.contains(reason), "\(said)")
        }
    }
}
