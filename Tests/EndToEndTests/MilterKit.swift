import Foundation
import XCTest

/// Test peers for `passconduit milter`: a private Postfix (Debian's `postfix`) started in a
/// temporary folder on loopback, and the milter daemon itself. Both are real processes; a missing
/// peer fails the test.
enum MilterKit {
    /// The fields of `/proc/PID/status` ("Uid" → "0 0 0 0", "CapEff" → "0000000000000000"), runs
    /// of blanks made one space.
    static func procStatus(_ pid: Int32) -> [String: String] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ") }
        }
        return fields
    }

    /// A process whose parent is `parent` (the milter daemon's scan worker), if any.
    static func child(of parent: Int32) -> Int32? {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init).first { pid in
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            return stat.split(separator: ")").last?.split(separator: " ").dropFirst(1).first == "\(parent)"
        }
    }

    /// Runs a program to its end; its output (stdout and stderr) goes to a file so it cannot block.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                    stdin: Data? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let outURL = FileManager.default.temporaryDirectory.appendingPathComponent("pc-milter-run-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outURL) }
        let out = try FileHandle(forWritingTo: outURL)
        process.standardOutput = out
        process.standardError = out
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        try out.close()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: outURL), as: UTF8.self))
    }

    /// A free TCP port on 127.0.0.1 (bound to port 0, then released).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func isListening(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return r == 0
    }

    static func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }
}

/// `passconduit milter` as a child process.
final class MilterProcess {
    let process = Process()
    let port: Int
    let home: URL
    let logURL: URL

    /// `executable`: the binary, or a wrapper that runs it (as another user) with its arguments.
    /// `listen`: the address (default: inet on `port`, which the start waits for).
    init(home: URL, arguments: [String], port: Int = MilterKit.freePort(), environment extra: [String: String] = [:],
         executable: URL = Binary.url, trust: String = Run.sample("ca/trust"), listen: String? = nil) throws {
        self.home = home
        self.port = port
        logURL = home.appendingPathComponent("state/passconduit/milter.log")
        process.executableURL = executable
        process.arguments = ["milter", "--listen", listen ?? "inet:\(port)@127.0.0.1", "--trust", trust] + arguments
        process.environment = FilterRun.environment(home, extra: extra)
        let out = home.appendingPathComponent("milter.out")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        let handle = try FileHandle(forWritingTo: out)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let ready: () -> Bool
        if let listen, listen.hasPrefix("unix:") {
            let path = String(listen.dropFirst(5))
            ready = { [process] in FileManager.default.fileExists(atPath: path) || !process.isRunning }
        } else {
            ready = { MilterKit.isListening(port) }
        }
        guard MilterKit.waitUntil(30, ready), process.isRunning else {
            if process.isRunning { process.terminate() }
            throw NSError(domain: "MilterProcess", code: 1, userInfo: [NSLocalizedDescriptionKey:
                "passconduit milter did not listen on \(port): " + ((try? String(contentsOf: out, encoding: .utf8)) ?? "")])
        }
    }

    var logLines: [String] {
        ((try? String(contentsOf: logURL, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The lines about messages (not start, stop or sessions).
    var messageLines: [String] { logLines.filter { $0.contains(" result=") && !$0.contains("result=session-closed") } }

    func kill(_ signal: Int32 = SIGKILL) {
        if process.isRunning { Glibc.kill(process.processIdentifier, signal) }
    }

    /// SIGTERM, then waits for the exit; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
}

/// A private Postfix: its own config, queue and data folders under a temporary folder, smtpd on
/// two loopback ports (one with the milter, one without, for comparison), delivery by virtual(8)
/// to Maildirs in the same folder.
final class PostfixInstance {
    let root: URL
    let milterPort: Int
    let plainPort: Int
    static let recipients = ["alice@example.org", "bob@example.org", "carol@example.net", "dave@example.net"]
    var config: String { root.appendingPathComponent("conf").path }

    /// `extraMain`: more main.cf lines (they win over the ones above them); `extraServices`:
    /// more master.cf lines (a pipe transport).
    init(milter: String, extraMain: [String] = [], extraServices: [String] = []) throws {
        // Postfix insists on root-owned folders that others cannot write: made here, not by
        // FileManager's temporary-directory defaults.
        root = URL(fileURLWithPath: "/tmp/pc-postfix-\(getpid())-\(UUID().uuidString.prefix(8))")
        milterPort = MilterKit.freePort()
        plainPort = MilterKit.freePort()
        let fm = FileManager.default
        for sub in ["conf", "queue", "data", "mail"] {
            try fm.createDirectory(at: root.appendingPathComponent(sub), withIntermediateDirectories: true,
                                   attributes: [.posixPermissions: 0o755])
        }
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.path)
        // getpwnam returns static storage: each entry is copied before the next call.
        guard let postfix = getpwnam("postfix").map({ ($0.pointee.pw_uid, $0.pointee.pw_gid) }),
              let nobody = getpwnam("nobody").map({ ($0.pointee.pw_uid, $0.pointee.pw_gid) }) else {
            throw NSError(domain: "PostfixInstance", code: 1, userInfo: [NSLocalizedDescriptionKey: "no postfix user: install Debian's postfix (script/packages/milter.txt)"])
        }
        chown(root.appendingPathComponent("data").path, postfix.0, postfix.1)
        let (mailUID, mailGID) = nobody
        chown(root.appendingPathComponent("mail").path, mailUID, mailGID)
        let r = root.path
        let main = """
            compatibility_level = 3.6
            queue_directory = \(r)/queue
            data_directory = \(r)/data
            command_directory = /usr/sbin
            daemon_directory = /usr/lib/postfix/sbin
            shlib_directory = /usr/lib/postfix
            meta_directory = /etc/postfix
            mail_owner = postfix
            setgid_group = postdrop
            inet_interfaces = 127.0.0.1
            inet_protocols = ipv4
            myhostname = mx.test.invalid
            mydomain = test.invalid
            myorigin = test.invalid
            mydestination =
            mynetworks = 127.0.0.0/8
            relayhost =
            alias_maps =
            alias_database =
            smtputf8_enable = no
            biff = no
            local_header_rewrite_clients =
            recipient_delimiter = +
            message_size_limit = 52428800
            virtual_mailbox_limit = 0
            virtual_mailbox_domains = example.org example.net
            virtual_mailbox_base = \(r)/mail
            virtual_mailbox_maps = texthash:\(r)/conf/vmailbox
            virtual_uid_maps = static:\(mailUID)
            virtual_gid_maps = static:\(mailGID)
            virtual_destination_concurrency_limit = 20
            maillog_file = \(r)/postfix.log
            maillog_file_prefixes = \(r)
            smtpd_milters = \(milter)
            milter_default_action = accept
            milter_protocol = 6
            in_flow_delay = 0
            """ + extraMain.map { "\n" + $0 }.joined()
        try main.write(toFile: "\(r)/conf/main.cf", atomically: true, encoding: .utf8)
        try Self.recipients.map { a in "\(a) \(a.split(separator: "@")[1])/\(a.split(separator: "@")[0])/" }
            .joined(separator: "\n").appending("\n").write(toFile: "\(r)/conf/vmailbox", atomically: true, encoding: .utf8)
        let services = [
            "127.0.0.1:\(milterPort) inet n - n - - smtpd",
            "127.0.0.1:\(plainPort) inet n - n - - smtpd -o smtpd_milters=",
            "pickup unix n - n 60 1 pickup", "cleanup unix n - n - 0 cleanup", "qmgr unix n - n 300 1 qmgr",
            "rewrite unix - - n - - trivial-rewrite", "bounce unix - - n - 0 bounce", "defer unix - - n - 0 bounce",
            "trace unix - - n - 0 bounce", "verify unix - - n - 1 verify", "flush unix n - n 1000? 0 flush",
            "proxymap unix - - n - - proxymap", "smtp unix - - n - - smtp", "relay unix - - n - - smtp",
            "showq unix n - n - - showq", "error unix - - n - - error", "retry unix - - n - - error",
            "discard unix - - n - - discard", "local unix - n n - - local", "virtual unix - n n - - virtual",
            "lmtp unix - - n - - lmtp", "anvil unix - - n - 1 anvil", "scache unix - - n - 1 scache",
            "postlog unix-dgram n - n - 1 postlogd",
        ] + extraServices
        try (services.joined(separator: "\n") + "\n").write(toFile: "\(r)/conf/master.cf", atomically: true, encoding: .utf8)
        let started = try MilterKit.run("/usr/sbin/postfix", ["-c", config, "start"])
        guard started.status == 0, MilterKit.waitUntil(30, { MilterKit.isListening(milterPort) && MilterKit.isListening(plainPort) }) else {
            let log = (try? String(contentsOfFile: "\(r)/postfix.log", encoding: .utf8)) ?? ""
            throw NSError(domain: "PostfixInstance", code: 2, userInfo: [NSLocalizedDescriptionKey:
                "postfix -c \(config) start: \(started.status) \(started.output)\n\(log)"])
        }
    }

    func stop() {
        _ = try? MilterKit.run("/usr/sbin/postfix", ["-c", config, "stop"])
        _ = MilterKit.waitUntil(10) { !MilterKit.isListening(milterPort) }
        try? FileManager.default.removeItem(at: root)
    }

    /// The delivered files of `recipient` (Maildir `new/`), in no particular order.
    func delivered(_ recipient: String) -> [URL] {
        let parts = recipient.split(separator: "@")
        let dir = root.appendingPathComponent("mail/\(parts[1])/\(parts[0])/new")
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted().map { dir.appendingPathComponent($0) }
    }

    /// Sends `message` to `recipient` through `port` and returns the one file it became.
    func deliverOne(_ message: URL, to recipient: String, port: Int) throws -> URL? {
        let before = Set(delivered(recipient))
        let sent = try send(message, to: [recipient], port: port)
        guard sent.status == 0 else { return nil }
        _ = MilterKit.waitUntil(60) { delivered(recipient).count > before.count }
        return delivered(recipient).first { !before.contains($0) }
    }

    /// Waits until `recipient` has `count` messages (or the time is up); returns them.
    func waitForDeliveries(_ recipient: String, count: Int, seconds: Double = 60) -> [URL] {
        _ = MilterKit.waitUntil(seconds) { delivered(recipient).count >= count }
        return delivered(recipient)
    }

    /// Sends every file in `messages` through `port`, to `local+N@domain` for the N-th (Python's
    /// smtplib, one SMTP session); returns the numbers Postfix refused.
    func sendAll(_ messages: [URL], local: String, domain: String, port: Int) throws -> [Int] {
        let script = """
            import json, smtplib, sys
            port, local, domain = int(sys.argv[1]), sys.argv[2], sys.argv[3]
            paths = json.load(sys.stdin)
            refused = []
            s = smtplib.SMTP("127.0.0.1", port, timeout=120)
            for i, p in enumerate(paths):
                try:
                    s.sendmail("sender@example.net", [f"{local}+{i}@{domain}"], open(p, "rb").read())
                except smtplib.SMTPException:
                    refused.append(i)
                    s.rset()
            s.quit()
            print(json.dumps(refused))
            """
        let input = try JSONSerialization.data(withJSONObject: messages.map(\.path))
        let r = try MilterKit.run("/usr/bin/python3", ["-c", script, "\(port)", local, domain], stdin: input)
        guard r.status == 0, let line = r.output.split(separator: "\n").last,
              let refused = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Int] else {
            throw NSError(domain: "PostfixInstance.sendAll", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: r.output])
        }
        return refused
    }

    /// `recipient`'s delivered messages by the number in their `X-Original-To: local+N@domain`.
    func deliveredByNumber(_ recipient: String) throws -> [Int: URL] {
        var out: [Int: URL] = [:]
        for url in delivered(recipient) {
            let head = String(decoding: try Data(contentsOf: url).prefix(4096), as: UTF8.self)
            guard let line = head.split(separator: "\n").first(where: { $0.hasPrefix("X-Original-To: ") }),
                  let plus = line.firstIndex(of: "+"), let at = line.firstIndex(of: "@"),
                  let n = Int(line[line.index(after: plus)..<at]) else { continue }
            out[n] = url
        }
        return out
    }

    var log: String { (try? String(contentsOfFile: root.appendingPathComponent("postfix.log").path, encoding: .utf8)) ?? "" }

    /// Sends `message` with swaks (Debian `swaks`) to `recipients` through `port`.
    func send(_ message: URL, to recipients: [String], port: Int) throws -> (status: Int32, output: String) {
        try MilterKit.run("/usr/bin/swaks", ["--server", "127.0.0.1:\(port)", "--from", "sender@example.net",
                                             "--to", recipients.joined(separator: ","), "--data", message.path, "--silent", "2"])
    }
}

/// Header fields of a delivered message, for comparisons that ignore what the MTA adds.
enum DeliveredMessage {
    /// `bytes` without the header fields named in `names` (case-insensitive) and their
    /// continuation lines; `firstOnly` names lose only their first field.
    static func removing(_ names: Set<String>, firstOnly: Set<String> = [], from bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var seen: Set<String> = []
        var skipping = false
        var inHeader = true
        var start = 0
        while start < bytes.count {
            let end = (bytes[start...].firstIndex(of: 10).map { $0 + 1 }) ?? bytes.count
            let line = bytes[start..<end]
            defer { start = end }
            if !inHeader { out += line; continue }
            if line.first == 10 || (line.first == 13 && line.dropFirst().first == 10) {
                inHeader = false
                out += line
                continue
            }
            if line.first == 0x20 || line.first == 0x09 {
                if !skipping { out += line }
                continue
            }
            let name = String(decoding: line.prefix { $0 != 0x3A }, as: UTF8.self).lowercased()
            if names.contains(name) { skipping = true; continue }
            if firstOnly.contains(name) && !seen.contains(name) { seen.insert(name); skipping = true; continue }
            skipping = false
            out += line
        }
        return out
    }

    /// Our field lines (name and folded value, joined) in a delivered message.
    static func ownFields(_ bytes: [UInt8]) -> [String] {
        var fields: [String] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty { break }
            if line.first == " " || line.first == "\t" {
                if !fields.isEmpty, fields[fields.count - 1].lowercased().hasPrefix("x-passconduit") { fields[fields.count - 1] += String(line) }
                continue
            }
            fields.append(String(line))
        }
        return fields.filter { $0.lowercased().hasPrefix("x-passconduit:") || $0.lowercased().hasPrefix("x-passconduit-pass:") }
    }
}
