import Foundation
import XCTest

/// Runs `passconduit filter` (or a shell line around it) the way a mail host does, with files for
/// stdin/stdout/stderr so nothing can deadlock, and checks the delivery-filter promise.
enum FilterRun {
    struct Result {
        var status: Int32
        var signaled: Bool
        var stdout: [UInt8]
        var stderr: [UInt8]
        var seconds: Double
    }

    static let scratch: URL = {
        let u = FileManager.default.temporaryDirectory.appendingPathComponent("pc-filter-e2e-\(getpid())")
        try? FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }()

    /// Removes everything the filter tests made (called from each class's tearDown).
    static func cleanUp() {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// A fresh directory under the scratch folder.
    static func directory(_ name: String) -> URL {
        let u = scratch.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }

    /// An environment with a private state/data home so tests never touch the real user's files.
    static func environment(_ home: URL, extra: [String: String] = [:]) -> [String: String] {
        var env = ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home.path, "LANG": "C",
                   "XDG_STATE_HOME": home.appendingPathComponent("state").path,
                   "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                   "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
                   // The machine's /etc/passconduit/config.toml is never read by a test.
                   "PASSCONDUIT_SYSTEM_CONFIG": home.appendingPathComponent("etc/passconduit/config.toml").path,
                   "SWIFT_BACKTRACE": "enable=no"]
        for (k, v) in extra { env[k] = v }
        return env
    }

    static func filter(_ input: [UInt8], arguments: [String] = [], environment: [String: String]? = nil,
                       cwd: URL? = nil, signalAfter: (Double, Int32)? = nil) throws -> Result {
        try run(executable: Binary.url, arguments: ["filter"] + arguments, input: input,
                environment: environment ?? FilterRun.environment(directory("home")), cwd: cwd, signalAfter: signalAfter)
    }

    static func shell(_ script: String, input: [UInt8], environment: [String: String]) throws -> Result {
        var env = environment
        env["PASSCONDUIT"] = Binary.url.path
        return try run(executable: URL(fileURLWithPath: "/bin/bash"), arguments: ["-c", script], input: input, environment: env)
    }

    /// Starts one filter per input, all before waiting for any (they really run at once), then
    /// collects every result.
    static func parallel(_ inputs: [[UInt8]], arguments: [String], environment: [String: String]) throws -> [Result] {
        var running: [(Process, URL)] = []
        for input in inputs {
            let dir = directory("par")
            try Data(input).write(to: dir.appendingPathComponent("in"))
            _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("out").path, contents: nil)
            _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("err").path, contents: nil)
            let p = Process()
            p.executableURL = Binary.url
            p.arguments = ["filter"] + arguments
            p.environment = environment
            p.standardInput = try FileHandle(forReadingFrom: dir.appendingPathComponent("in"))
            p.standardOutput = try FileHandle(forWritingTo: dir.appendingPathComponent("out"))
            p.standardError = try FileHandle(forWritingTo: dir.appendingPathComponent("err"))
            running.append((p, dir))
        }
        for (p, _) in running { try p.run() }
        return try running.map { p, dir in
            p.waitUntilExit()
            return Result(status: p.terminationStatus, signaled: p.terminationReason == .uncaughtSignal,
                          stdout: try [UInt8](Data(contentsOf: dir.appendingPathComponent("out"))),
                          stderr: try [UInt8](Data(contentsOf: dir.appendingPathComponent("err"))), seconds: 0)
        }
    }

    static func run(executable: URL, arguments: [String], input: [UInt8], environment: [String: String],
                    cwd: URL? = nil, signalAfter: (Double, Int32)? = nil) throws -> Result {
        let dir = directory("run")
        let inURL = dir.appendingPathComponent("in"), outURL = dir.appendingPathComponent("out"), errURL = dir.appendingPathComponent("err")
        try Data(input).write(to: inURL)
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        p.environment = environment
        if let cwd { p.currentDirectoryURL = cwd }
        p.standardInput = try FileHandle(forReadingFrom: inURL)
        p.standardOutput = try FileHandle(forWritingTo: outURL)
        p.standardError = try FileHandle(forWritingTo: errURL)
        let started = Date()
        try p.run()
        if let (delay, sig) = signalAfter {
            usleep(UInt32(delay * 1_000_000))
            kill(p.processIdentifier, sig)
        }
        p.waitUntilExit()
        let seconds = Date().timeIntervalSince(started)
        defer { try? FileManager.default.removeItem(at: dir) }
        return Result(status: p.terminationStatus, signaled: p.terminationReason == .uncaughtSignal,
                      stdout: try [UInt8](Data(contentsOf: outURL)), stderr: try [UInt8](Data(contentsOf: errURL)), seconds: seconds)
    }
}

/// Builds mail around pass files: multipart/mixed with a base64 `application/vnd.apple.pkpass`
/// part per pass, in LF or CRLF, optionally after an mbox `From ` line.
enum FilterMail {
    static func message(passes: [(name: String, bytes: [UInt8])], crlf: Bool = false, fromLine: Bool = false,
                        extraHeaders: [String] = [], subject: String = "Your tickets") -> [UInt8] {
        var lines: [String] = []
        if fromLine { lines.append("From tickets@example.org Sat Nov 21 12:00:00 2026") }
        lines += ["From: Tickets <tickets@example.org>", "To: you@example.net", "Subject: \(subject)",
                  "Message-ID: <\(subject.hashValue & 0xFFFFFF)-\(passes.count)@example.org>", "Date: Sat, 21 Nov 2026 12:00:00 +0000"]
        lines += extraHeaders
        lines += ["MIME-Version: 1.0", "Content-Type: multipart/mixed; boundary=\"b1\"", "", "preamble",
                  "--b1", "Content-Type: text/plain; charset=utf-8", "", "Your passes are attached.", ""]
        for p in passes {
            lines += ["--b1", "Content-Type: application/vnd.apple.pkpass; name=\"\(p.name)\"",
                      "Content-Disposition: attachment; filename=\"\(p.name)\"", "Content-Transfer-Encoding: base64", ""]
            let b64 = Data(p.bytes).base64EncodedString()
            var i = b64.startIndex
            while i < b64.endIndex {
                let j = b64.index(i, offsetBy: 76, limitedBy: b64.endIndex) ?? b64.endIndex
                lines.append(String(b64[i..<j]))
                i = j
            }
        }
        lines += ["--b1--", ""]
        return Array(lines.joined(separator: crlf ? "\r\n" : "\n").utf8)
    }

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static func samplePass(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: repositoryRoot.appendingPathComponent("Samples/passes/\(name)")))
    }
}

/// The promise, checked from outside (independent of the filter's code): the output is the input
/// with only X-Passconduit / X-Passconduit-Pass header lines added or removed, each clean.
enum FilterPromise {
    static func assertIntact(input: [UInt8], output: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        if input == output { return }
        let a = stripOwn(output), b = stripOwn(input)
        if a != b {
            let at = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            XCTFail("output differs beyond our header lines: \(a.count) vs \(b.count) bytes, first difference at \(at): "
                    + String(decoding: a[at..<min(a.count, at + 60)], as: UTF8.self).debugDescription, file: file, line: line)
        }
        for l in output.split(separator: 10).prefix(400) where isOwn(Array(l)) || l.first == 0x20 {
            XCTAssertLessThanOrEqual(l.count, 998, file: file, line: line)
        }
    }

    static func ownHeaderLines(_ bytes: [UInt8]) -> [String] {
        var out: [String] = []
        var inOwn = false
        for l in bytes.split(separator: 10, omittingEmptySubsequences: false) {
            let s = Array(l.last == 13 ? l.dropLast() : l)
            if s.isEmpty { break }
            if isOwn(s) { out.append(String(decoding: s, as: UTF8.self)); inOwn = true }
            else if inOwn && (s.first == 0x20 || s.first == 0x09) { out[out.count - 1] += String(decoding: s, as: UTF8.self) }
            else { inOwn = false }
        }
        return out
    }

    static func isOwn(_ l: [UInt8]) -> Bool {
        let lower = l.prefix(20).map { ($0 >= 65 && $0 <= 90) ? $0 + 32 : $0 }
        return lower.starts(with: Array("x-passconduit:".utf8)) || lower.starts(with: Array("x-passconduit-pass:".utf8))
    }

    /// Lines of own fields (and their continuations) removed from the header area.
    static func stripOwn(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0, inHeader = true, skipping = false
        while i < bytes.count {
            let end = bytes[i...].firstIndex(of: 10).map { $0 + 1 } ?? bytes.count
            let l = Array(bytes[i..<end])
            if inHeader {
                if l == [10] || l == [13, 10] { inHeader = false; out += l }
                else if isOwn(l) { skipping = true }
                else if skipping && (l.first == 0x20 || l.first == 0x09) {}
                else { skipping = false; out += l }
            } else {
                out += l
            }
            i = end
        }
        return out
    }
}
