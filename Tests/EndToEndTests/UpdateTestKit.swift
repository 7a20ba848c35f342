import Foundation
import XCTest

/// Peers and passes for the `update` tests: django-walletpass (the real PassKit web-service
/// server, from .build-peers/walletpass, made by script/setup.d/40-walletpass-peer.sh) and a local
/// fault server (Python http.server + ssl), both on 127.0.0.1 and stopped after the class.
enum UpdateKit {
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("update-peer")
    static let venvPython = Run.root.appendingPathComponent(".build-peers/walletpass/bin/python")

    /// A process started for a test class, with the port it wrote.
    final class Server {
        let process: Process
        let port: Int
        let dir: URL

        init(executable: URL, arguments: [String], dir: URL, what: String) throws {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let portFile = dir.appendingPathComponent("port")
            process = Process()
            process.executableURL = executable
            process.arguments = arguments + ["--port-file", portFile.path]
            process.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC", "PYTHONDONTWRITEBYTECODE": "1"]
            let log = dir.appendingPathComponent("server.log")
            FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                if let text = try? String(contentsOf: portFile, encoding: .utf8), let p = Int(text) {
                    port = p
                    self.dir = dir
                    return
                }
                guard process.isRunning else { break }
                usleep(100_000)
            }
            process.terminate()
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw NSError(domain: "UpdateKit", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(what) did not start: \(output.suffix(2000))"])
        }

        func stop() {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
    }

    /// django-walletpass 5.0.1; fails (never skips) when the virtualenv is missing.
    static func startWalletpassPeer(_ dir: URL) throws -> Server {
        guard FileManager.default.isExecutableFile(atPath: venvPython.path) else {
            throw NSError(domain: "UpdateKit", code: 2, userInfo: [NSLocalizedDescriptionKey:
                "the django-walletpass peer is not installed: run script/setup.d/40-walletpass-peer.sh (script/bootstrap does; it needs Debian's python3-venv)"])
        }
        return try Server(executable: venvPython, arguments: [scripts.appendingPathComponent("walletpass_peer.py").path, "--dir", dir.path],
                          dir: dir, what: "django-walletpass")
    }

    static func startFaultServer(_ dir: URL, tls: (cert: String, key: String)?) throws -> Server {
        var arguments = [scripts.appendingPathComponent("fault_server.py").path, "--passes", dir.path]
        if let tls { arguments += ["--cert", tls.cert, "--key", tls.key] }
        return try Server(executable: URL(fileURLWithPath: "/usr/bin/python3"), arguments: arguments, dir: dir, what: "fault server")
    }

    /// Runs a program and returns its stdout; throws with its stderr when it fails.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], input: Data? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC"]
        let out = Pipe(), err = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(input) }
        try inPipe.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(domain: "UpdateKit", code: Int(process.terminationStatus), userInfo: [NSLocalizedDescriptionKey:
                "\(executable) \(arguments.prefix(3).joined(separator: " ")) failed: \(String(decoding: errors, as: UTF8.self).suffix(1500))"])
        }
        return data
    }

    /// A boarding pass (Samples/passes/boarding-pass.pkpass) re-signed by the sample CA with these
    /// edits, its signing time frozen at `signed` (UTC), never expiring.
    static func pass(serial: String, webServiceURL: String?, token: String = "token-0123456789abcdef", gate: String = "A26",
                     signed: Date, type: String = "pass.org.passconduit.boarding", signer: String = "boarding",
                     extra: [String: Any] = [:], in dir: URL) throws -> URL {
        var edits: [String: Any] = ["serialNumber": serial, "passTypeIdentifier": type, "expirationDate": NSNull(),
                                    "relevantDates": NSNull(), "authenticationToken": token, "fields": ["gate": gate]]
        edits["webServiceURL"] = webServiceURL ?? NSNull()
        for (k, v) in extra { edits[k] = v }
        let out = dir.appendingPathComponent("\(type)-\(serial)-\(UUID().uuidString.prefix(6)).pkpass")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let json = String(decoding: try JSONSerialization.data(withJSONObject: edits), as: UTF8.self)
        try run("/usr/bin/python3", [scripts.appendingPathComponent("forge.py").path, Run.sample("passes/boarding-pass.pkpass"),
                                     out.path, Run.sample("ca"), signer, json, formatter.string(from: signed)])
        return out
    }

    /// curl, for the peers' control routes.
    static func curl(_ arguments: [String]) throws -> Data {
        try run("/usr/bin/curl", ["-sS", "--fail", "--max-time", "30"] + arguments)
    }

    static func json(_ data: Data) -> Any? { try? JSONSerialization.jsonObject(with: data) }

    /// A test CA and a certificate for 127.0.0.1 signed by it (openssl), in `dir`.
    static func makeTLS(_ dir: URL, name: String) throws -> (ca: String, cert: String, key: String) {
        let d = dir.path
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(d)/\(name)-ca.key",
                                     "-out", "\(d)/\(name)-ca.pem", "-days", "2", "-subj", "/CN=passconduit test CA \(name)",
                                     "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"])
        try run("/usr/bin/openssl", ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(d)/\(name)-server.key",
                                     "-out", "\(d)/\(name)-server.csr", "-subj", "/CN=127.0.0.1"])
        try "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n".write(toFile: "\(d)/\(name)-ext.cnf", atomically: true, encoding: .utf8)
        try run("/usr/bin/openssl", ["x509", "-req", "-in", "\(d)/\(name)-server.csr", "-CA", "\(d)/\(name)-ca.pem",
                                     "-CAkey", "\(d)/\(name)-ca.key", "-CAcreateserial", "-days", "2",
                                     "-extfile", "\(d)/\(name)-ext.cnf", "-out", "\(d)/\(name)-server.pem"])
        return ("\(d)/\(name)-ca.pem", "\(d)/\(name)-server.pem", "\(d)/\(name)-server.key")
    }
}

extension Run {
    /// The JSON outcome of the one pass an `update --json` checked.
    var outcome: [String: Any]? { objects.first }
}
