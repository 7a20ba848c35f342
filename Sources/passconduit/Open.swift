import ArgumentParser
import Conduit
import Foundation
import PassRender
#if canImport(Glibc)
import Glibc
#endif

struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        _superCommandName: "passconduit",
        abstract: "Show a pass's card in your web browser.",
        discussion: """
        Writes the card (front and back) as one self-contained HTML page to a private temporary \
        folder and opens it with xdg-open. The page loads nothing from anywhere and runs no \
        script. SOURCE is a .pkpass file, - for standard input, or a pass in your library. This \
        is what the graphical mailcap and .desktop entries run.

        Example:
          passconduit open ticket.pkpass
        """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "A .pkpass file, - for standard input, or a pass in your library.")
    var source: String

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let pass = try RenderSource.load(source, context: context)
            let out = try Render.draw(pass, request: RenderRequest(format: .html, side: .both))
            let path = try Self.privateFile(named: "pass-\(pass.verdict.sha256.prefix(12)).html", bytes: out.bytes,
                                            environment: context.environment)
            if global.verbose { Terminal.warn("wrote \(path)") }
            let status = try Self.launch(["xdg-open", path], environment: context.environment)
            guard status == 0 else {
                throw CLIError("xdg-open could not open \(path) (exit status \(status)); open it in a browser yourself",
                               status: .tempFailure)
            }
            return .success
        }
    }

    /// A new folder only this user can enter (mkdtemp, 0700) under $TMPDIR, holding the file (0600):
    /// the card of someone's ticket is nobody else's business.
    static func privateFile(named name: String, bytes: [UInt8], environment: [String: String]) throws -> String {
        let base = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/passconduit-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            throw CLIError("\(base): cannot make a private folder: \(String(cString: strerror(errno)).lowercased())",
                           status: .cannotCreate)
        }
        let folder = String(cString: template)
        let path = folder + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw CLIError("\(path): cannot write the page", status: .cannotCreate) }
        defer { close(fd) }
        if let code = OutputFile.writeAll(bytes, to: fd) {
            throw CLIError("\(path): cannot write the page: \(String(cString: strerror(code)).lowercased())", status: .ioError)
        }
        return path
    }

    /// Runs a program found on PATH and waits for it.
    static func launch(_ argv: [String], environment: [String: String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = argv
        process.environment = environment
        do {
            try process.run()
        } catch {
            throw CLIError("cannot run \(argv[0]): \(error.localizedDescription) (Debian package xdg-utils)", status: .tempFailure)
        }
        process.waitUntilExit()
        if process.terminationStatus == 127 {
            throw CLIError("\(argv[0]) is not installed (Debian package xdg-utils)", status: .tempFailure)
        }
        return process.terminationStatus
    }
}
