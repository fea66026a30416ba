// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "swift-gps-facade",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LocationFacade", targets: ["LocationFacade"]),
        .library(name: "Simulators", targets: ["Simulators"]),
        .library(name: "Workout", targets: ["Workout"]),
        .executable(name: "locate", targets: ["locate"]),
        .executable(name: "workout", targets: ["workout"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", exact: "1.1.1"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibGPS",
            pkgConfig: "libgps",
            providers: [.apt(["libgps-dev"])]
        ),
        .target(
            name: "LocationFacade",
            dependencies: [
                "CLibGPS",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev", "zlib1g-dev"])]
        ),
        .target(
            name: "Workout",
            dependencies: [
                "LocationFacade",
                "CLibXML2",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "Simulators",
            dependencies: [
                "LocationFacade",
                "Workout",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What the two commands share: writing lines to standard output and error.
        .target(name: "CommandSupport"),
        .executableTarget(
            name: "locate",
            dependencies: [
                "CommandSupport",
                "LocationFacade",
                "Simulators",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "workout",
            dependencies: [
                "CommandSupport",
                "Workout",
                "LocationFacade",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "TestSupport",
            dependencies: ["LocationFacade", "Simulators"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "LocationFacadeTests",
            dependencies: ["LocationFacade", "Simulators", "TestSupport", .product(name: "Clocks", package: "swift-clocks")]
        ),
        .testTarget(
            name: "SimulatorsTests",
            dependencies: ["Simulators", "LocationFacade", "TestSupport", .product(name: "Clocks", package: "swift-clocks")]
        ),
        .testTarget(
            name: "locateTests",
            dependencies: ["locate", "LocationFacade", "Simulators", "TestSupport"]
        ),
        .testTarget(
            name: "workoutTests",
            dependencies: ["workout", "Workout", "LocationFacade", "Simulators", "TestSupport"]
        ),
        .testTarget(
            name: "WorkoutTests",
            dependencies: [
                "Workout", "LocationFacade", "Simulators", "TestSupport", "workout-crash-writer",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // A child process for the kill -9 tests: saves large runs into a store file until killed.
        .executableTarget(
            name: "workout-crash-writer",
            dependencies: ["Workout", "LocationFacade", "Simulators"],
            path: "Tests/Tools/workout-crash-writer"
        ),
        // Swift-side measurements for scripts/bench (build with -c release); one subcommand per family.
        .executableTarget(
            name: "gpsbench",
            dependencies: [
                "LocationFacade",
                "Simulators",
                "Workout",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/gpsbench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
