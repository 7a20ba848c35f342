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
        """,
        version: Passconduit.version)

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
            let status: Int32
            do {
                status = try Self.launch(["xdg-open", path], environment: context.environment)
            } catch {
                // Nothing will read the page: it does not stay behind.
                unlink(path)
                throw error
            }
            guard status == 0 else {
                unlink(path)
                throw CLIError("xdg-open could not open \(path) (exit status \(status)); no browser is set up to open it (xdg-settings set default-web-browser …), or run: passconduit render SOURCE -o card.html",
                               status: .unavailable)
            }
            return .success
        }
    }

    /// The page in this user's own folder under $TMPDIR (`passconduit-UID`, 0700, checked to be
    /// a real folder of this user that nobody else may enter), as a file (0600) named after the
    /// pass: opening a pass again replaces its page instead of leaving one more copy per call.
    /// A folder that does not check out is not used: then a new one is made (mkdtemp).
    /// The card of someone's ticket is nobody else's business.
    static func privateFile(named name: String, bytes: [UInt8], environment: [String: String]) throws -> String {
        let base = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var folder = base + "/passconduit-\(getuid())"
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { folder = "" }
        var info = stat()
        if folder.isEmpty || lstat(folder, &info) != 0 || (info.st_mode & S_IFMT) != S_IFDIR
            || info.st_uid != getuid() || info.st_mode & 0o077 != 0 {
            var template = Array((base + "/passconduit-XXXXXX").utf8CString)
            let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
            guard made != nil else {
                throw CLIError("\(base): cannot make a private folder: \(String(cString: strerror(errno)).lowercased())",
                               status: .cannotCreate)
            }
            folder = String(cString: template)
        }
        let path = folder + "/" + name
        let temporary = folder + "/.\(name).\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw CLIError("\(path): cannot write the page", status: .cannotCreate) }
        if let code = OutputFile.writeAll(bytes, to: fd) {
            close(fd)
            unlink(temporary)
            throw CLIError("\(path): cannot write the page: \(String(cString: strerror(code)).lowercased())", status: .ioError)
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CLIError("\(path): cannot write the page: \(String(cString: strerror(errno)).lowercased())", status: .ioError)
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
            throw CLIError("cannot run \(argv[0]): \(error.localizedDescription) (Debian package xdg-utils)", status: .unavailable)
        }
        process.waitUntilExit()
        if process.terminationStatus == 127 {
            throw CLIError("\(argv[0]) is not installed (Debian package xdg-utils)", status: .unavailable)
        }
        return process.terminationStatus
    }
}
