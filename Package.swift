// swift-tools-version: 6.1
import PackageDescription

// The module graph, from the bottom up (each depends on what it needs and no more):
//
//   GPSCore            RFC 3339, geodesy, XML and JSON text: one copy of each, no C library
//   GZipFiles          files read plain or gzip-compressed (zlib): one reader for every format
//   GPX                the GPX reader and writer (libxml2)            -> GPSCore, GZipFiles
//   FIT                the FIT decoder and encoder                    -> GZipFiles
//   TCX                the TCX reader and writer (GPX's libxml2 bridge) -> GPSCore, GPX, GZipFiles
//   LocationCore       Location, LocationManager, LocationSource       -> GPSCore (no C library)
//   LocationFacade     GPSDClient (libgps); re-exports LocationCore   -> LocationCore
//   CourseFiles        courses read from GPX, FIT, TCX and GeoJSON, written as FIT and GPX
//                                                                      -> Navigation, GPX, FIT, TCX, RegionMonitoring
//   RegionMonitoring   RegionMonitor: circles, GeoJSON polygons, corridors, lines, the anchor alarm
//                      (no C library)                                  -> LocationCore
//   DBus               D-Bus over sd-bus (libsystemd)                  -> GPSCore
//   GeoClue            GeoClueLocationSource, GeoClueAgent (no libgps) -> LocationCore, DBus
//   SimulatorsCore     location fakes without libgps: replays of GPX and NMEA, the virtual clock,
//                      NMEA, the fake gpsd server, the private bus     -> LocationCore, GPX
//   Simulators         gpsd logs replayed through libgps; re-exports SimulatorsCore -> SimulatorsCore, LocationFacade
//   GeoClueSimulators  a fake GeoClue, the real one run privately (no libgps) -> GeoClue, SimulatorsCore
//   WorkoutCore        QuantityType, QuantitySample, SampleSource (no C library) -> (nothing)
//   Workout            the store (GRDB), import/export, sessions; re-exports WorkoutCore
//                                                                      -> WorkoutCore, LocationCore, GPX, FIT, TCX, GZipFiles
//   BluetoothGATT      BLE measurements, decoded and encoded          -> (nothing)
//   BluetoothSensors   BLE heart rate, speed/cadence, power via BlueZ (no store, no libgps)
//                                                                      -> BluetoothGATT, WorkoutCore, DBus, LocationCore
//   WorkoutSimulators  workout fakes: store faults, sensors, BlueZ (no libgps)
//                                                                      -> Workout, BluetoothSensors, SimulatorsCore, GPX
//   LocationPublisher  positions to MQTT (libmosquitto) and HTTP (libcurl) through a durable outbox (GRDB)
//                                                                      -> LocationCore, GPSCore
//   PublisherSimulators publisher fakes: a recording destination, a private mosquitto -> LocationPublisher, SimulatorsCore
//   LocateCommand      `locate` (no SQLite, no GRDB)                   -> LocationFacade, GeoClue, Simulators, RegionMonitoring
//   PublishCommand     `locate-publish` (`locate publish` hands over)  -> LocationFacade, GeoClue, Simulators, LocationPublisher,
//                                                                         RegionMonitoring
//   WorkoutCommand     `workout`                                       -> Workout, CourseFiles, BluetoothSensors, WorkoutSimulators, Simulators
//
// Tests/LinkTests builds a small program per library product and holds what it links (readelf's
// NEEDED) to the README's product table.
let package = Package(
    name: "swift-gps-facade",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LocationCore", targets: ["LocationCore"]),
        .library(name: "LocationFacade", targets: ["LocationFacade"]),
        .library(name: "RegionMonitoring", targets: ["RegionMonitoring"]),
        .library(name: "Geometry", targets: ["Geometry"]),
        .library(name: "Navigation", targets: ["Navigation"]),
        .library(name: "CourseFiles", targets: ["CourseFiles"]),
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "GeoClue", targets: ["GeoClue"]),
        .library(name: "GeoClueSimulators", targets: ["GeoClueSimulators"]),
        .library(name: "BluetoothSensors", targets: ["BluetoothSensors"]),
        .library(name: "BluetoothGATT", targets: ["BluetoothGATT"]),
        .library(name: "SimulatorsCore", targets: ["SimulatorsCore"]),
        .library(name: "Simulators", targets: ["Simulators"]),
        .library(name: "WorkoutCore", targets: ["WorkoutCore"]),
        .library(name: "Workout", targets: ["Workout"]),
        .library(name: "WorkoutUpload", targets: ["WorkoutUpload"]),
        .library(name: "WorkoutSimulators", targets: ["WorkoutSimulators"]),
        .library(name: "LocationPublisher", targets: ["LocationPublisher"]),
        .library(name: "PublisherSimulators", targets: ["PublisherSimulators"]),
        .library(name: "GPX", targets: ["GPX"]),
        .library(name: "FIT", targets: ["FIT"]),
        .library(name: "TCX", targets: ["TCX"]),
        .executable(name: "locate", targets: ["LocateCommand"]),
        .executable(name: "locate-publish", targets: ["PublishCommand"]),
        .executable(name: "workout", targets: ["WorkoutCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", exact: "1.1.1"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", exact: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibGPS",
            pkgConfig: "libgps",
            providers: [.apt(["libgps-dev"])]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CSDBus",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libcurl: only LocationPublisher's HTTP destination sees it (Sources/LocationPublisher/HTTP/Curl.swift says why libcurl).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // libmosquitto, the Eclipse reference MQTT client: only LocationPublisher's MQTT bridge sees it.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .target(name: "GPSCore"),
        // Plain and gzip-compressed files read alike, through zlib: the one place that sees it.
        .target(
            name: "GZipFiles",
            dependencies: ["CZlib"]
        ),
        // D-Bus over sd-bus: connections, calls, properties, signals, exported objects.
        .target(
            name: "DBus",
            dependencies: ["GPSCore", "CSDBus"]
        ),
        .target(
            name: "FIT",
            dependencies: ["GZipFiles"]
        ),
        .target(
            name: "TCX",
            dependencies: ["GPSCore", "GPX", "GZipFiles"]
        ),
        .target(
            name: "GPX",
            dependencies: ["GPSCore", "CLibXML2", "GZipFiles"]
        ),
        // What every location source shares, with no C library: a program that takes its
        // positions from GeoClue alone does not link libgps.
        .target(
            name: "LocationCore",
            dependencies: [
                "GPSCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Region monitoring over any location source: geometry, jitter rules, the state file. It
        // links what LocationCore links and nothing more (GPSCore is LocationCore's own).
        .target(
            name: "RegionMonitoring",
            dependencies: ["GPSCore", "LocationCore", "Geometry"]
        ),
        // Positions on the Earth, a local plane, a polyline and the one projection onto it: what
        // the region monitor's corridors and the navigator's courses share.
        .target(
            name: "Geometry",
            dependencies: ["GPSCore"]
        ),
        // Following a course: the course (its distances, cues, climbs), the navigator that matches
        // fixes to it, the NMEA sentences a plotter reads. It links what LocationCore links and
        // nothing more.
        .target(
            name: "Navigation",
            dependencies: ["GPSCore", "LocationCore", "Geometry"]
        ),
        // Courses in files: read from GPX, FIT, TCX and GeoJSON (each format's own reader), written
        // as FIT courses and GPX routes. No store, no libgps.
        .target(
            name: "CourseFiles",
            dependencies: ["FIT", "Geometry", "GPSCore", "GPX", "GZipFiles", "Navigation", "RegionMonitoring", "TCX"]
        ),
        .target(
            name: "LocationFacade",
            dependencies: [
                "GPSCore",
                "LocationCore",
                "CLibGPS",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Positions from GeoClue over D-Bus: links libsystemd, not libgps.
        .target(
            name: "GeoClue",
            dependencies: [
                "DBus",
                "GPSCore",
                "LocationCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The location fakes that need no libgps: a fake of GeoClue or BlueZ links none.
        .target(
            name: "SimulatorsCore",
            dependencies: [
                "GPSCore",
                "LocationCore",
                "GPX",
            ]
        ),
        // What reads gpsd's reports through libgps (the replay of a gpsd log, as GPSDClient reads
        // gpsd), with SimulatorsCore re-exported.
        .target(
            name: "Simulators",
            dependencies: [
                "LocationFacade",
                "SimulatorsCore",
            ]
        ),
        // What sessions and sample sources share, with no C library: a strap reader links no store.
        .target(name: "WorkoutCore"),
        .target(
            name: "Workout",
            dependencies: [
                "WorkoutCore",
                "GPSCore",
                "LocationCore",
                "GPX",
                "FIT",
                "TCX",
                "GZipFiles",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Positions shared with the world: a filter, a durable outbox (SQLite through GRDB), the
        // payloads (OwnTracks, Home Assistant, OsmAnd) and destinations (MQTT through libmosquitto).
        // HTTP through libcurl's multi interface on a thread of its own, for the publisher's HTTP
        // destinations and the workout uploads: the one Swift module that touches libcurl.
        .target(
            name: "HTTPClient",
            dependencies: ["CCurl", "GPSCore"]
        ),
        // Workouts leave the device: the store's upload queue sent to FitTrackee (and the others),
        // each workout once.
        .target(
            name: "WorkoutUpload",
            dependencies: ["GPSCore", "HTTPClient", "Workout"]
        ),
        .target(
            name: "LocationPublisher",
            dependencies: [
                "CMosquitto",
                "HTTPClient",
                "GPSCore",
                "LocationCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Fakes for users' tests of what they publish: a destination that records, and a real
        // mosquitto of a test's own.
        .target(
            name: "PublisherSimulators",
            dependencies: ["GPSCore", "LocationPublisher", "SimulatorsCore"]
        ),
        // Fakes of GeoClue for tests: the service on a private bus, and the real one run privately.
        .target(
            name: "GeoClueSimulators",
            dependencies: ["DBus", "GeoClue", "GPSCore", "LocationCore", "SimulatorsCore"]
        ),
        // The Bluetooth SIG's measurements, decoded and encoded: pure Swift, no D-Bus (fuzzed alone).
        // A debug build calls libm's round() for Double.rounded(), and a program that imports this
        // module alone links nothing else that would bring libm: it is named here, or such a
        // program does not link (Tests/LinkTests builds one).
        .target(name: "BluetoothGATT", linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        // Bluetooth LE workout sensors through BlueZ: sample sources for sessions.
        .target(
            name: "BluetoothSensors",
            dependencies: [
                "BluetoothGATT",
                "DBus",
                "GPSCore",
                "LocationCore",
                "WorkoutCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "WorkoutSimulators",
            dependencies: ["BluetoothSensors", "DBus", "GPSCore", "GPX", "LocationCore", "SimulatorsCore", "Workout"]
        ),
        // What the two commands share: output lines, exit statuses, signals.
        .target(
            name: "CommandSupport",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The options `locate`'s commands share with `locate-publish`: where the fixes come from.
        .target(
            name: "LocateOptions",
            dependencies: [
                "CommandSupport",
                "DBus",
                "GeoClue",
                "GPX",
                "LocationFacade",
                "RegionMonitoring",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "LocateCommand",
            dependencies: [
                "CommandSupport",
                "CourseFiles",
                "DBus",
                "GeoClue",
                "GPSCore",
                "GPX",
                "LocateOptions",
                "LocationFacade",
                "Navigation",
                "RegionMonitoring",
                "Simulators",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `locate publish`, an executable of its own that `locate` hands over to: linked into
        // `locate`, libcurl, libmosquitto and what they load (30 libraries) made every `locate
        // once` start half again as slow.
        .executableTarget(
            name: "PublishCommand",
            dependencies: [
                "CommandSupport",
                "GPSCore",
                "LocateOptions",
                "LocationFacade",
                "LocationPublisher",
                "RegionMonitoring",
                "Simulators",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "WorkoutCommand",
            dependencies: [
                "BluetoothSensors",
                "CommandSupport",
                "CourseFiles",
                "DBus",
                "GPSCore",
                "Navigation",
                "GPX",
                "LocationFacade",
                "Simulators",
                "Workout",
                "WorkoutSimulators",
                "WorkoutUpload",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The GPX reader under libFuzzer: scripts/fuzz-gpx builds it with -sanitize=fuzzer,address
        // and -D FUZZING; in a normal build it is a command that runs the fuzz checks on files.
        .executableTarget(
            name: "GPXFuzz",
            dependencies: ["GPX"],
            path: "Fuzz/GPXFuzz"
        ),
        // The FIT decoder under libFuzzer, built the same way by scripts/fuzz-fit.
        .executableTarget(
            name: "FITFuzz",
            dependencies: ["FIT"],
            path: "Fuzz/FITFuzz"
        ),
        // The Bluetooth measurement decoders under libFuzzer, built the same way by scripts/fuzz-ble.
        .executableTarget(
            name: "BLEFuzz",
            dependencies: ["BluetoothGATT"],
            path: "Fuzz/BLEFuzz"
        ),
        .target(
            name: "TestSupport",
            dependencies: ["GPSCore", "GPX", "HTTPClient", "LocationFacade", "Simulators", "PublisherSimulators", "Navigation"],
            path: "Tests/TestSupport"
        ),
        // The README's Swift examples, and those of the API reference (`///` comments and the DocC
        // articles), appear, as printed, in compiled files.
        .testTarget(name: "ReadmeTests", dependencies: ["TestSupport"]),
        // The README's product table says what each product links: a program per product (Probes/,
        // targets of their own when SWIFT_GPS_FACADE_PRODUCT_PROBES=1, below), built.
        .testTarget(name: "LinkTests", dependencies: ["TestSupport"], exclude: ["Probes"]),
        // The API reference's examples, as printed, in code the build compiles (ReadmeTests checks
        // that each one is here): every library's, so it depends on them all.
        .testTarget(
            name: "DocExamplesTests",
            dependencies: [
                "BluetoothGATT", "BluetoothSensors", "CommandSupport", "CourseFiles", "DBus", "FIT", "GeoClue", "GeoClueSimulators",
                "Geometry", "GPSCore", "GPX", "GZipFiles", "LocationCore", "LocationFacade", "LocationPublisher", "Navigation", "PublisherSimulators", "RegionMonitoring", "Simulators", "SimulatorsCore", "TCX",
                "Workout", "WorkoutCore", "WorkoutSimulators", "WorkoutUpload",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "GPSCoreTests",
            dependencies: ["GPSCore", "Simulators"]
        ),
        .testTarget(
            name: "GPXTests",
            dependencies: ["GPX", "GPSCore", "TestSupport"]
        ),
        .testTarget(
            name: "FITTests",
            dependencies: ["FIT", "TestSupport"]
        ),
        .testTarget(
            name: "CourseFilesTests",
            dependencies: ["CourseFiles", "FIT", "Geometry", "GPX", "Navigation", "SimulatorsCore", "TestSupport", "WorkoutCommand"]
        ),
        .testTarget(
            name: "TCXTests",
            dependencies: ["TCX", "GPX", "GPSCore", "TestSupport"]
        ),
        .testTarget(
            name: "LocationFacadeTests",
            dependencies: ["LocationFacade", "LocationCore", "Simulators", "TestSupport", .product(name: "Clocks", package: "swift-clocks")]
        ),
        .testTarget(
            name: "SimulatorsTests",
            dependencies: [
                "Simulators", "SimulatorsCore", "LocationFacade", "TestSupport", "Workout", "WorkoutSimulators", "where-am-i",
                .product(name: "Clocks", package: "swift-clocks"),
            ],
            exclude: ["Recordings"]  // the recordings the examples replay, kept beside them as users would
        ),
        .testTarget(
            name: "LocationPublisherTests",
            dependencies: [
                "LocationPublisher", "LocationCore", "LocationFacade", "SimulatorsCore", "GPSCore", "TestSupport", "RegionMonitoring",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "NavigationTests",
            dependencies: ["Navigation", "Geometry", "LocationCore", "TestSupport"]
        ),
        .testTarget(
            name: "RegionMonitoringTests",
            dependencies: [
                "RegionMonitoring", "LocationCore", "SimulatorsCore", "GPX", "TestSupport",
                .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        .testTarget(
            name: "DBusTests",
            dependencies: ["DBus", "GPSCore", "Simulators", "TestSupport"]
        ),
        .testTarget(
            name: "GeoClueTests",
            dependencies: ["GeoClue", "GeoClueSimulators", "DBus", "LocationCore", "Simulators", "TestSupport", "GPSCore"]
        ),
        .testTarget(
            name: "BluetoothSensorsTests",
            dependencies: [
                "BluetoothSensors", "DBus", "GPSCore", "LocationCore", "Simulators", "TestSupport", "Workout", "WorkoutSimulators",
                // A sensor and a GeoClue source share the process's connection to the bus.
                "GeoClue", "GeoClueSimulators",
            ]
        ),
        .testTarget(
            name: "LocateCommandTests",
            dependencies: ["LocateCommand", "LocationFacade", "Simulators", "TestSupport", "DBus", "GeoClue", "GeoClueSimulators", "GPSCore", "Navigation"]
        ),
        .testTarget(
            name: "WorkoutCommandTests",
            dependencies: ["WorkoutCommand", "Workout", "FIT", "GPSCore", "LocationFacade", "Simulators", "WorkoutSimulators", "BluetoothSensors", "TestSupport", "Navigation"]
        ),
        .testTarget(
            name: "WorkoutTests",
            dependencies: [
                "Workout", "GPX", "FIT", "TCX", "LocationFacade", "Simulators", "SimulatorsCore", "WorkoutSimulators", "TestSupport",
                "workout-crash-writer",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "WorkoutUploadTests",
            dependencies: ["WorkoutUpload", "Workout", "WorkoutSimulators", "GPSCore", "HTTPClient", "Simulators", "TestSupport"]
        ),
        .testTarget(
            name: "WorkoutSimulatorsTests",
            dependencies: ["WorkoutSimulators", "Workout", "Simulators", "LocationFacade", "TestSupport"]
        ),
        // The README's minimal program ("Using it in your package"), built and run by a test.
        .executableTarget(
            name: "where-am-i",
            dependencies: ["LocationFacade", "Simulators"],
            path: "Examples/where-am-i"
        ),
        // A child process for the kill -9 tests: saves large runs into a store file until killed.
        .executableTarget(
            name: "workout-crash-writer",
            dependencies: ["Workout", "LocationFacade", "Simulators", "WorkoutSimulators"],
            path: "Tests/Tools/workout-crash-writer"
        ),
        // Swift-side measurements for scripts/bench (build with -c release); one subcommand per family.
        .executableTarget(
            name: "gpsbench",
            dependencies: [
                "BluetoothGATT",
                "BluetoothSensors",
                "DBus",
                "GeoClue",
                "GPSCore",
                "LocationFacade",
                "LocationPublisher",
                "RegionMonitoring",
                "Simulators",
                "Workout",
                "WorkoutSimulators",
                "GPX",
                "FIT",
                "Geometry",
                "Navigation",
                "CourseFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/gpsbench"
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The ThreadSanitizer stage of scripts/test builds and runs only the test targets with concurrent
// code to check (SWIFT_GPS_FACADE_THREAD_SANITIZER=1 in its environment, which nothing else sets):
// the location client and manager, the fakes (replays, the fake gpsd), the workout store and
// sessions, D-Bus, GeoClue, the Bluetooth sensors, the region monitor and the publisher. The other
// test targets (files and figures, the commands, the documentation's examples) hold single-threaded
// code or code these already run; the package is cut to these and what they depend on, so that
// the sanitized build (a second build of the package in a CI run) compiles no command and no test
// it does not run. scripts/test reads the list from `swift package dump-package`.
if Context.environment["SWIFT_GPS_FACADE_THREAD_SANITIZER"] == "1" {
    let sanitized: Set<String> = [
        "LocationFacadeTests", "SimulatorsTests", "WorkoutTests", "WorkoutSimulatorsTests", "DBusTests", "GeoClueTests",
        "BluetoothSensorsTests", "RegionMonitoringTests", "LocationPublisherTests",
    ]
    let byName = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
    var kept = Set<String>()
    var waiting = Array(sanitized)
    while let name = waiting.popLast() {
        guard kept.insert(name).inserted, let target = byName[name] else { continue }
        for dependency in target.dependencies {
            switch dependency {
            case let .targetItem(name, _), let .byNameItem(name, _): waiting.append(name)
            case .productItem: break  // another package's
            @unknown default: break
            }
        }
    }
    package.targets.removeAll { !kept.contains($0.name) }
    package.products.removeAll { product in
        let targets = (product as? Product.Library)?.targets ?? (product as? Product.Executable)?.targets ?? []
        return targets.contains { !kept.contains($0) }
    }
}

// Tests/LinkTests holds each library product to the README's product table by what a program that
// imports it alone links (readelf's NEEDED). The programs are Tests/LinkTests/Probes/PRODUCT/main.swift,
// one executable each depending on its product's targets, as a user's package depends on the
// product; they are targets of the package when SWIFT_GPS_FACADE_PRODUCT_PROBES=1, which scripts/test
// sets, so that the build of the tests compiles each library once for both (a probe package of its
// own compiled every library a second time, the tail of a CI run). A new library product needs its
// folder there. Not in the ThreadSanitizer build, which runs no LinkTests.
if Context.environment["SWIFT_GPS_FACADE_PRODUCT_PROBES"] == "1" && Context.environment["SWIFT_GPS_FACADE_THREAD_SANITIZER"] != "1" {
    for case let library as Product.Library in package.products {
        package.targets.append(.executableTarget(
            name: "links-\(library.name)",
            dependencies: library.targets.map { .target(name: $0) },
            path: "Tests/LinkTests/Probes/\(library.name)"
        ))
    }
}
