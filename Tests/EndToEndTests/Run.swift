import Foundation
import XCTest

/// Runs the built `passconduit` the way a user would, with a private HOME and library, the test
/// CA as an extra trust anchor, and no colour; returns exit status and both outputs.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String

    /// The repository root (Samples/ lives there).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func sample(_ path: String) -> String { root.appendingPathComponent("Samples/" + path).path }

    /// JSON objects, one per stdout line.
    var objects: [[String: Any]] {
        stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }
}

/// A temporary home with its own library; removed after the test.
final class Sandbox {
    let dir: URL

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pc-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: dir) }

    var library: String { dir.appendingPathComponent("library.sqlite").path }

    var environment: [String: String] {
        [
            "HOME": dir.path, "XDG_CONFIG_HOME": dir.appendingPathComponent("config").path,
            "XDG_DATA_HOME": dir.appendingPathComponent("data").path,
            "XDG_STATE_HOME": dir.appendingPathComponent("state").path,
            "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "SWIFT_BACKTRACE": "enable=no", "TZ": "UTC",
            // The machine's /etc/passconduit/config.toml is never read by a test (SystemConfigTests).
            "PASSCONDUIT_SYSTEM_CONFIG": dir.appendingPathComponent("etc/passconduit/config.toml").path,
        ]
    }

    /// The common options: this sandbox's library and the test CA.
    var common: [String] { ["--library", library, "--trust", Run.sample("ca/trust")] }

    /// `passconduit <command> <common options> <arguments>`.
    func run(_ command: String, _ arguments: [String] = [], stdin: Data? = nil, common useCommon: Bool = true,
             environment extra: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> Run {
        let process = Process()
        // A new session without a controlling terminal: run from a developer's terminal, the
        // child must not find /dev/tty and wait for an answer there.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--wait", Binary.url.path, command] + (useCommon ? common : []) + arguments
        process.environment = environment.merging(extra) { _, new in new }
        process.currentDirectoryURL = dir
        // Outputs go to files, so neither can fill a pipe and block the child.
        let outURL = dir.appendingPathComponent("stdout-\(UUID().uuidString)")
        let errURL = dir.appendingPathComponent("stderr-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        try out.close()
        try err.close()
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        return Run(status: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                   stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Runs on a real pseudo-terminal (python3's pty module) and answers each "[y/N]" question in turn.
    /// `colour: false` sets NO_COLOR, as most tests compare plain text.
    /// `stdinFile`: the child's standard input comes from this file while its controlling
    /// terminal stays the pseudo-terminal (`cat msg | passconduit add -` asks on /dev/tty).
    /// `extraEnvironment`: more variables for the child (COLUMNS: the pseudo-terminal has no size).
    func runOnTerminal(_ command: String, _ arguments: [String], answers: [String], colour: Bool = false,
                       stdinFile: String? = nil, extraEnvironment: [String: String] = [:], common useCommon: Bool = true) throws -> Run {
        let script = """
        import os, pty, sys, json
        argv = json.loads(sys.argv[1]); answers = json.loads(sys.argv[2])
        pid, fd = pty.fork()
        if pid == 0:
            if sys.argv[4]:
                os.dup2(os.open(sys.argv[4], os.O_RDONLY), 0)
            os.execve(argv[0], argv, json.loads(sys.argv[3]))
        out = b""; pending = b""
        while True:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            out += data; pending += data
            if b"[y/N]" in pending:
                pending = b""
                os.write(fd, (answers.pop(0) if answers else "n").encode() + b"\\n")
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(out.decode("utf-8", "replace"))
        sys.exit(os.waitstatus_to_exitcode(status))
        """
        let argv = [Binary.url.path, command] + (useCommon ? common : []) + arguments
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        func json(_ value: Any) throws -> String { String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self) }
        var env = environment
        env["TERM"] = "xterm"
        if !colour { env["NO_COLOR"] = "1" }
        env.merge(extraEnvironment) { _, new in new }
        process.arguments = ["-c", script, try json(argv), try json(answers), try json(env), stdinFile ?? ""]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n"), stderr: "")
    }
}

/// SHA-256 of a sample file, by sha256sum (Foundation on Linux has no digest API).
func sha256(ofSample path: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [Run.sample(path)]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return String(text.prefix(64))
}
