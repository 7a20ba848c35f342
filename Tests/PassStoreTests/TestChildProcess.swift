import Foundation
import XCTest

/// Runs the `PassStoreTestChild` helper executable (a declared dependency of PassStoreTests, so
/// `swift build --build-tests` puts it next to the test bundle).
enum TestChildProcess {
    static func url() throws -> URL {
        var dir = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("PassStoreTestChild")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        let fallback = URL(fileURLWithPath: ".build/debug/PassStoreTestChild")
        guard FileManager.default.isExecutableFile(atPath: fallback.path) else {
            throw Missing()
        }
        return fallback
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String { "PassStoreTestChild is not built next to the tests; run `swift build --build-tests` first" }
    }

    /// Starts PassStoreTestChild with `arguments`, output to files (pipes could fill and block a child).
    static func start(_ arguments: [String], output: String) throws -> Process {
        let process = Process()
        process.executableURL = try url()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        _ = FileManager.default.createFile(atPath: output + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: output + ".err", contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: output + ".out")
        process.standardError = FileHandle(forWritingAtPath: output + ".err")
        try process.run()
        return process
    }

    static func text(_ path: String) -> String {
        String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }
}
