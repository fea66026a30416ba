import CommandSupport
import LocationPublisher

// The examples of HTTPDestination (LocationPublisher/HTTP) and CommandSupport's SystemdNotify, as
// printed in their `///` comments, in functions that give them what they name. ReadmeTests checks
// that each example is here.

enum PublishingExamples {
    // LocationPublisher/HTTP/HTTPDestination.swift
    static func httpDestinations(password: String) -> [any PublishDestination] {
        let recorder = HTTPDestination(
            url: "https://owntracks.example/pub",
            format: .ownTracks(user: "alice", device: "van", trackerID: "AV"),
            login: HTTPLogin(user: "alice", password: password))
        let traccar = HTTPDestination(url: "http://traccar.example:5055/", format: .osmAnd(deviceID: "van-7"))
        return [recorder, traccar]
    }

    // CommandSupport/SystemdNotify.swift
    static func notify() -> Duration? {
        SystemdNotify.send("READY=1")
        let watchdog = SystemdNotify.watchdogInterval()   // nil unless the unit sets WatchdogSec=
        return watchdog
    }
}
