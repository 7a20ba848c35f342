import Foundation
import XCTest

/// The manual pages match the program: every command and option the parser knows is in
/// `passconduit(1)` (Docs/passconduit.1, made by script/gen-manual from the command
/// definitions), and the page names none that does not exist. The filter's own page lists the
/// options the filter reads by hand (FilterArguments).
final class ManualTests: XCTestCase {
    struct Command {
        var path: [String]
        var options: Set<String>
    }

    /// Every command (by path below the root) with its long options, from the parser's own dump.
    func commands() throws -> [Command] {
        let run = try MilterKit.run(Binary.url.path, ["--experimental-dump-help"])
        XCTAssertEqual(run.status, 0, run.output)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        var found: [Command] = []
        func walk(_ command: [String: Any], path: [String]) {
            var options = Set<String>()
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                if argument["shouldDisplay"] as? Bool == false { continue }
                for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                    if let long = name["name"] as? String { options.insert(long) }
                }
            }
            found.append(Command(path: path, options: options))
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                guard let name = sub["commandName"] as? String, sub["shouldDisplay"] as? Bool != false else { continue }
                walk(sub, path: path + [name])
            }
        }
        walk(try XCTUnwrap(json["command"] as? [String: Any]), path: [])
        return found
    }

    func page(_ path: String) throws -> String {
        try String(contentsOf: Run.root.appendingPathComponent(path), encoding: .utf8)
    }

    /// `.It Em NAME` items (commands) and `Fl -NAME` words (long options) of an mdoc page.
    func named(in page: String) -> (commands: Set<String>, options: Set<String>) {
        var commands = Set<String>(), options = Set<String>()
        for line in page.split(separator: "\n") {
            if line.hasPrefix(".It Em ") { commands.insert(String(line.dropFirst(7)).trimmingCharacters(in: .whitespaces)) }
            // ".It Fl v , -verbose Ar x": every word that starts with "-" after an Fl is a long option.
            let words = line.split(separator: " ")
            guard let first = words.firstIndex(of: "Fl") else { continue }
            for word in words[first...] where word.hasPrefix("-") && word.count > 1 {
                options.insert(String(word.dropFirst()).trimmingCharacters(in: CharacterSet(charactersIn: ",")))
            }
        }
        return (commands, options)
    }

    func testThePageHasEveryCommandAndOptionAndNoOther() throws {
        let commands = try commands()
        let manual = named(in: try page("Docs/passconduit.1"))
        let names = Set(commands.flatMap { $0.path })
        let options = commands.reduce(into: Set<String>()) { $0.formUnion($1.options) }
        XCTAssertEqual(names.subtracting(manual.commands), [], "commands missing from Docs/passconduit.1: run script/gen-manual")
        XCTAssertEqual(options.subtracting(manual.options), [], "options missing from Docs/passconduit.1: run script/gen-manual")
        XCTAssertEqual(manual.commands.subtracting(names), [], "Docs/passconduit.1 names commands that do not exist")
        XCTAssertEqual(manual.options.subtracting(options), [], "Docs/passconduit.1 names options that do not exist")
        XCTAssertGreaterThanOrEqual(names.count, 17)
    }

    func testTheMilterPageHasEveryOptionOfTheMilter() throws {
        let milter = try XCTUnwrap(try commands().first { $0.path == ["milter"] })
        let page = named(in: try page("Docs/passconduit-milter.8")).options
        XCTAssertEqual(milter.options.subtracting(page), [], "Docs/passconduit-milter.8 lacks options: run script/gen-manual")
        XCTAssertTrue(milter.options.contains("on-library-error"))
    }

    func testTheServePageHasEveryOptionOfServe() throws {
        let serve = try XCTUnwrap(try commands().first { $0.path == ["serve"] })
        let text = try page("Docs/passconduit-serve.1")
        XCTAssertEqual(serve.options.subtracting(named(in: text).options), [], "Docs/passconduit-serve.1 lacks options: run script/gen-manual")
        for section in ["SIGNALS", "EXIT STATUS", "SIGN-IN LIMITS", "BEHIND A PROXY", "LOGS", "FILES"] {
            XCTAssertTrue(text.contains(".Sh \(section)\n"), "passconduit-serve(1) has no \(section)")
        }
    }

    /// What an operator met in the pages (operator trial D13): the milter page's generated
    /// "EXIT STATUS" ran into its SIGNALS section (two EXIT STATUS headings, the first about
    /// signals), passconduit.toml(5) had keys "(no description)", and the pages sent the reader
    /// to Samples/integrations/, a folder of the source tree that the package does not have.
    func testThePagesGiveAnOperatorOneExitStatusEveryKeyAndTheInstalledExamples() throws {
        for path in ["Docs/passconduit.1", "Docs/passconduit-milter.8", "Docs/passconduit-serve.1", "Docs/passconduit.toml.5"] {
            let text = try page(path)
            let headings = text.split(separator: "\n").filter { $0.hasPrefix(".Sh") && $0.contains("EXIT STATUS") }
            XCTAssertLessThanOrEqual(headings.count, 1, "\(path): \(headings)")
            XCTAssertFalse(text.contains(".Ex -std.Sh"), path)
            XCTAssertFalse(text.contains("(no description)"), path)
            for line in text.split(separator: "\n") where line.contains("Samples/integrations") {
                XCTAssertTrue(line.contains("in the source tree"), "\(path) sends an operator to the source tree only: \(line)")
            }
        }
    }

    func testTheFilterPageHasEveryOptionTheFilterReads() throws {
        // The filter parses its own arguments; its usage lines list them all, each as "[--name".
        let run = try MilterKit.run(Binary.url.path, ["help", "filter"])
        let usage = run.output
        let pattern = try NSRegularExpression(pattern: #"\[--([a-z][a-z-]*)"#)
        let options = Set(pattern.matches(in: usage, range: NSRange(usage.startIndex..., in: usage)).compactMap {
            Range($0.range(at: 1), in: usage).map { String(usage[$0]) }
        })
        XCTAssertTrue(options.contains("check"), usage)
        // A man(7) page: options are written \fB\-\-name\fR.
        let text = try page("Samples/integrations/man/passconduit-filter.1").replacingOccurrences(of: "\\-", with: "-")
        let page = Set(text.split(whereSeparator: { !($0.isLetter || $0 == "-") }).filter { $0.hasPrefix("--") && $0.count > 2 }
            .map { String($0.dropFirst(2)) })
        XCTAssertEqual(options.subtracting(page), [], "options of `passconduit filter` missing from passconduit-filter.1")
    }

    /// passconduit.toml(5) is made from Config/config.toml (which ConfigTests holds to the code's
    /// keys): the committed page is exactly what script/gen-config-manual writes now.
    func testTheConfigPageIsMadeFromTheShippedConfig() throws {
        let run = try MilterKit.run(Run.root.appendingPathComponent("script/gen-config-manual").path, ["--check"])
        XCTAssertEqual(run.status, 0, "Docs/passconduit.toml.5 is stale: run script/gen-config-manual")
        let page = try page("Docs/passconduit.toml.5")
        for key in ["on-library-error", "library-map", "max-bundle-members", "directories"] {
            XCTAssertTrue(page.contains("\\fB\(key.replacingOccurrences(of: "-", with: "\\-"))\\fR"), key)
        }
    }

    func testEveryPageRendersWithoutWarnings() throws {
        for path in ["Docs/passconduit.1", "Docs/passconduit-milter.8", "Docs/passconduit-serve.1", "Docs/passconduit.toml.5",
                     "Samples/integrations/man/passconduit-filter.1"] {
            // The page itself to /dev/null: what is left is what man and groff complain of.
            let run = try MilterKit.run("/bin/sh", ["-c", "man --warnings -l \"$1\" > /dev/null", "sh", Run.root.appendingPathComponent(path).path],
                                        environment: ["PATH": "/usr/bin:/bin", "MANWIDTH": "80", "LANG": "C.UTF-8"])
            XCTAssertEqual(run.status, 0, run.output)
            XCTAssertEqual(run.output, "", path)
        }
    }
}
