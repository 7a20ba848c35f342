import ArgumentParser
import Barcodes
import Conduit
import Foundation
import PassSend
import PassStore

struct Send: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        _superCommandName: "passconduit",
        abstract: "Hand a pass to an iPhone: serve it once on the local network, with a QR code to scan.",
        discussion: """
        Serves the pass over HTTP at an unguessable address (128 random bits) and shows that \
        address as a QR code: point the iPhone's camera at it, open the link in Safari, and Safari \
        hands the pass to Wallet. The first complete download ends it; a second request gets \
        "410 Gone"; any other address "404 Not Found". It stops after --timeout anyway.

        THE PASS TRAVELS UNENCRYPTED ON THE LOCAL NETWORK (plain HTTP): anyone on that network \
        who learns the address can fetch it until it has been downloaded once. Use it on a \
        network you trust; the address is printed, never published.

        It listens on one address only: --bind (an IPv4 or IPv6 address, optionally with its \
        port: 192.168.1.20:8080, [fe80::1]:8080; names are not looked up), else the address of \
        this computer's default route (read from /proc/net/route). --bind 0.0.0.0 or :: listens \
        on every address and puts the default route's address in the link. The phone must be \
        on the same network.

        Exit status: 0 when the pass was downloaded, 75 when nobody fetched it before the \
        timeout, 66 when there is no such pass, 64 when --bind is not an address, 69 when it \
        cannot listen there (no such address here, the port is in use or privileged).

        Examples:
          passconduit send 3fa2c1
          passconduit send pass.org.example.event/EVT-1 --timeout 2m
          passconduit send 3fa2c1 --bind 192.168.1.20 --port 8080
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("Listen on this address (default: the address on the default route).", valueName: "address"))
    var bind: String?

    @Option(name: .long, help: ArgumentHelp("Listen on this port (default: any free port).", valueName: "port"))
    var port: Int = 0

    @Option(name: .long, help: ArgumentHelp("Stop after this long: seconds, or with s/m/h (default 5m).", valueName: "time"))
    var timeout: String = "5m"

    @Argument(help: "The pass: type/serial or a SHA-256 prefix.")
    var id: String

    func validate() throws {
        guard Self.seconds(timeout) != nil else {
            throw ValidationError("--timeout takes seconds or a time with s, m or h (90, 90s, 5m, 1h), at most 24h.")
        }
        guard (0...65_535).contains(port) else { throw ValidationError("--port takes 0 to 65535.") }
    }

    /// "300", "90s", "5m", "1h" as seconds (1 s to 24 h).
    static func seconds(_ text: String) -> Int64? {
        var digits = Substring(text)
        var unit: Int64 = 1
        switch text.last {
        case "s": digits = digits.dropLast()
        case "m": digits = digits.dropLast(); unit = 60
        case "h": digits = digits.dropLast(); unit = 3600
        default: break
        }
        guard let n = Int64(digits), n > 0, n <= 86_400 / unit else { return nil }
        return n * unit
    }

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            var options = try Self.listening(bind: bind, port: port, defaultRoute: DefaultRoute.address())
            let (_, _, stored, bytes) = try context.namedPass(id)
            options.timeoutSeconds = Self.seconds(timeout) ?? 300
            let terminal = context.terminal
            let server = OneShotServer(pass: bytes, fileName: Self.fileName(stored), options: options) { event in
                switch event {
                case .downloaded(let client, let agent):
                    Self.say("Downloaded by \(client)" + (agent.map { " (\(Self.printable($0)))" } ?? "") + ".")
                case .interrupted(let client):
                    Self.say("\(client) stopped before the whole pass arrived; it is still available.")
                case .refused(let client, let status):
                    Self.say("\(client) asked for \(status == 410 ? "the pass again" : "something else") and got \(status).")
                }
            }
            let url: String
            do {
                url = try server.start()
            } catch {
                throw CLIError("\(error)", status: .unavailable)
            }
            Self.say("\(stored.organizationName): \(stored.description)")
            Self.say("is served once at")
            Self.say("  \(url)")
            Self.say("")
            do {
                let matrix = try BarcodeEncoder.matrix(bytes: Array(url.utf8), format: .qr)
                for line in TerminalBarcode(matrix).render(indent: 2) { Self.say(line) }
            } catch {
                Terminal.warn("cannot draw the QR code: \(error); type the address instead")
            }
            Self.say("")
            Self.say("Scan the code with the iPhone's camera and open the link; Safari hands the pass to Wallet.")
            Self.say(terminal.yellow("The pass travels unencrypted on the local network.")
                     + " It stops after one download or \(Self.duration(options.timeoutSeconds)).")
            let outcome = try server.wait()
            switch outcome {
            case .downloaded:
                return .success
            case .timedOut:
                Terminal.warn("nobody fetched the pass in \(Self.duration(options.timeoutSeconds)); stopped")
                return .tempFailure
            }
        }
    }

    /// Where to listen and which address the URL names: `--bind` (an address, optionally with
    /// its port), else the default route's address. 0.0.0.0 and :: listen on every address and
    /// put the default route's into the URL. A value that is not an address is a usage error (64);
    /// no address to put in the URL is 69.
    static func listening(bind: String?, port: Int, defaultRoute: String?) throws -> SendOptions {
        let noRoute = CLIError("this computer has no default route with an IPv4 address; name the address to listen on with --bind",
                               status: .unavailable)
        guard let bind else {
            guard let route = defaultRoute else { throw noRoute }
            var options = SendOptions(host: route)
            options.port = port
            return options
        }
        let address: BindAddress
        switch BindAddress.parse(bind) {
        case .success(let parsed): address = parsed
        case .failure(let problem): throw CLIError("--bind: \(problem)", status: .usage)
        }
        var options = SendOptions(host: address.host)
        options.port = port
        if let given = address.port {
            guard port == 0 || port == given else {
                throw CLIError("--bind \(bind) names port \(given) and --port \(port): give the port once", status: .usage)
            }
            options.port = given
        }
        if address.isUnspecified {
            // Every address of this computer: the URL needs one a phone can open.
            guard let route = defaultRoute else {
                throw CLIError("--bind \(bind) listens on every address, but the link needs one a phone can open and this computer has no default route with an IPv4 address; name that address with --bind",
                               status: .unavailable)
            }
            options.urlHost = route
        }
        return options
    }

    /// Lines go out at once: the address must be readable while the server waits.
    static func say(_ text: String) {
        print(text)
        fflush(nil)  // every stream: stdout itself is shared mutable state to Swift 6
    }

    /// A client's User-Agent without control characters, at most 200 characters.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F || (0x80..<0xA0).contains($0.value) ? "?" : $0 }).prefix(200))
    }

    /// "5 minutes", "90 seconds".
    static func duration(_ seconds: Int64) -> String {
        if seconds % 3600 == 0 { return seconds == 3600 ? "1 hour" : "\(seconds / 3600) hours" }
        if seconds % 60 == 0 { return seconds == 60 ? "1 minute" : "\(seconds / 60) minutes" }
        return seconds == 1 ? "1 second" : "\(seconds) seconds"
    }

    /// The download's name: the description in letters, digits and dashes, ".pkpass".
    static func fileName(_ stored: StoredPass) -> String {
        var name = ""
        for c in stored.description.unicodeScalars {
            if c.isASCII, CharacterSet.alphanumerics.contains(c) { name.unicodeScalars.append(c) }
            else if !name.hasSuffix("-") { name += "-" }
            if name.count >= 60 { break }
        }
        name = name.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return (name.isEmpty ? "pass" : name) + ".pkpass"
    }
}
