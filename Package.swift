// swift-tools-version:6.1
import PackageDescription

// Layers (see README "Architecture"): bytes -> MailMIME parts -> Conduit candidates
// -> WalletPass opened passes -> PassStore decisions -> passconduit CLI output.
// Lower layers know nothing of the CLI; everything is `package`/internal, nothing public.
let package = Package(
    name: "passconduit",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "passconduit", targets: ["passconduit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        // The PassKit web-service client (PassUpdate) only: HTTP/1.1 + TLS on SwiftNIO.
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
    ],
    targets: [
        // C libraries from Debian (libssl-dev, libzip-dev, libmagic-dev).
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CMagic", providers: [.apt(["libmagic-dev"])]),
        // libzint-dev (Debian 2.11) has no pkg-config file: a hand-written module map links "zint".
        .systemLibrary(name: "CZint", providers: [.apt(["libzint-dev"])]),
        // cairo (PNG/PDF/SVG surfaces) and pango for the card (libcairo2-dev, libpango1.0-dev).
        .systemLibrary(name: "CCairo", pkgConfig: "pangocairo", providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]),

        // Below WalletPass and PassStore: the one SHA-256/hex (OpenSSL) and changeMessage formatter.
        .target(name: "Support", dependencies: ["COpenSSL"]),
        // Streaming RFC 5322 / MIME parser and mailbox readers. Pure Swift, no dependencies.
        .target(name: "MailMIME"),
        // Open + verify a .pkpass: libzip, manifest, CMS (OpenSSL), pass.json, localization.
        .target(name: "WalletPass", dependencies: ["COpenSSL", "CZip", "Support"]),
        // Pass dates as RFC 5545 calendar events (the `calendar` command).
        .target(name: "PassCalendar", dependencies: ["WalletPass", "Support"]),
        // A pass's barcode as modules (libzint, binary mode, no ECI) and as terminal half blocks.
        .target(name: "Barcodes", dependencies: ["CZint", "WalletPass"]),
        // `send`: one pass served once over HTTP (SwiftNIO). The only target that listens on a socket.
        .target(name: "PassSend", dependencies: [
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
        // The local pass library on SQLite (GRDB).
        .target(name: "PassStore", dependencies: [.product(name: "GRDB", package: "GRDB.swift"), "Support"]),
        // PassKit web-service client: moves bytes, never verifies, never writes the library.
        .target(name: "PassUpdate", dependencies: [
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
        // Detection, scanning pipeline, add-flow decisions, config.
        .target(name: "Conduit", dependencies: [
            "MailMIME", "WalletPass", "PassStore", "PassUpdate", "CMagic",
            .product(name: "TOMLKit", package: "TOMLKit"),
        ]),
        // A pass as a person sees it: Wallet's layout per style, drawn with cairo/pango or as HTML.
        // Knows nothing of mail or the library.
        .target(name: "PassRender", dependencies: ["WalletPass", "CCairo"]),
        // The delivery filter as a process around a plan: scan (worker, report codec), library
        // policy, header edits, settings, spool. No process plumbing: `passconduit filter` owns
        // arguments, signals and exit codes (Sources/passconduit/Filter/), a milter would own its own.
        .target(name: "DeliveryFilter", dependencies: ["Conduit", "MailMIME", "WalletPass", "PassStore"]),
        // The delivery filter as a Sendmail/Postfix milter (protocol version 6) on SwiftNIO: packet
        // codec, per-session state machine, message collection into the filter's spool, and the
        // same plan and scanner as `passconduit filter`. `passconduit milter` owns the process.
        .target(name: "Milter", dependencies: [
            "DeliveryFilter", "MailMIME", "PassStore",
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ]),
        // The composition root: a `--library` value -> a library backend. Only executables use it.
        .target(name: "LibraryRoot", dependencies: ["PassStore"]),
        // Thin CLI.
        .executableTarget(name: "passconduit", dependencies: [
            "Conduit", "DeliveryFilter", "LibraryRoot", "Milter", "MailMIME", "PassStore", "PassRender", "PassUpdate", "WalletPass", "PassCalendar", "Barcodes", "PassSend",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // libFuzzer entry points. A plain build makes inert binaries; fuzz with
        // `swift build --build-path .build-fuzz --product FuzzMIME --sanitize=fuzzer --sanitize=address`
        // (see Fuzz/README.md).
        .executableTarget(name: "FuzzMIME", dependencies: ["MailMIME"]),
        .executableTarget(name: "FuzzPass", dependencies: ["WalletPass"]),

        // Benchmarks: plain release executables driven by scripts in Benchmarks/.
        .executableTarget(name: "MIMEBench", dependencies: ["MailMIME"], path: "Benchmarks/MIMEBench"),
        .executableTarget(name: "PassBench", dependencies: ["WalletPass"], path: "Benchmarks/PassBench"),
        .executableTarget(name: "StoreBench", dependencies: ["PassStore", "Support"], path: "Benchmarks/StoreBench"),

        // The one seeded random generator of the test suites (SplitMix64).
        .target(name: "TestRandom", path: "Tests/TestRandom"),
        .testTarget(name: "MailMIMETests", dependencies: ["MailMIME", "TestRandom"], exclude: ["differential"], resources: [.copy("Fixtures")]),
        .testTarget(name: "WalletPassTests", dependencies: ["TestRandom", "WalletPass", "Support"], resources: [.copy("Fixtures")]),
        .testTarget(name: "PassCalendarTests", dependencies: ["PassCalendar", "WalletPass"]),
        .testTarget(name: "BarcodesTests", dependencies: ["Barcodes", "WalletPass"], exclude: ["decode_barcodes.py"]),
        .testTarget(name: "PassStoreTests", dependencies: ["TestRandom", "PassStore", "Support", .product(name: "GRDB", package: "GRDB.swift")], resources: [.copy("Fixtures")]),
        .testTarget(name: "PassUpdateTests", dependencies: ["PassUpdate"]),
        .testTarget(name: "ConduitTests", dependencies: ["TestRandom", "Conduit", "MailMIME", "PassStore", "Support", "WalletPass"], resources: [.copy("Fixtures")]),
        .testTarget(name: "DeliveryFilterTests", dependencies: [
            "TestRandom", "DeliveryFilter", "Conduit", "PassStore", "Support", "WalletPass", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // The milter's packet codec, session state machine and library map, without a socket.
        .testTarget(name: "MilterTests", dependencies: ["Milter", .product(name: "NIOCore", package: "swift-nio")]),
        // The pipe process's own code (arguments, environ), compiled from the executable target.
        .testTarget(name: "PassconduitTests", dependencies: ["passconduit", "Conduit", "PassStore"]),
        // Runs the built `passconduit` binary the way a user or an MTA would.
        // PassStore only to check the library a run left behind (PassLibrary.check).
        .testTarget(name: "EndToEndTests", dependencies: ["TestRandom", "PassStore"], exclude: ["update-peer"]),
    ]
)
