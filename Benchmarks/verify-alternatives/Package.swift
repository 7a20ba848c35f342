// swift-tools-version:6.0
// A measurement, not part of passconduit's build: what verifying a pass's signature costs at start-up
// with swift-certificates (Apple's X.509 in Swift, on swift-crypto's BoringSSL) instead of OpenSSL 3.0.
// See README.md beside this file.
import PackageDescription

let package = Package(
    name: "verify-alternatives",
    dependencies: [
        .package(url: "https://github.com/apple/swift-certificates", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", exact: "1.7.4"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
    ],
    targets: [
        .executableTarget(name: "verify-x509", dependencies: [
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
    ]
)
