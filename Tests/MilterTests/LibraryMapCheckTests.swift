import XCTest
@testable import Milter
import PassStore

final class LibraryMapCheckTests: XCTestCase {
    func testATemplateWithATypoOrNoPlaceholderIsRefusedWithASentence() {
        XCTAssertNil(LibraryMap.problem(template: "/var/lib/pc/%{local}@%{domain}/library.sqlite"))
        XCTAssertNil(LibraryMap.problem(template: "/var/lib/pc/%{local}.sqlite"))
        XCTAssertNil(LibraryMap.problem(template: "postgresql:///passconduit?host=/run/postgresql"))
        XCTAssertEqual(LibraryMap.problem(template: "/var/lib/pc/%{locl}@%{domain}.sqlite"),
                       "unknown placeholder %{locl} (known: %{local}, %{domain})")
        XCTAssertTrue(LibraryMap.problem(template: "/var/lib/pc/library.sqlite")?.contains("no %{local}") ?? false)
        XCTAssertTrue(LibraryMap.problem(template: "/var/lib/pc/%{domain}.sqlite")?.contains("no %{local}") ?? false)
        XCTAssertNotNil(LibraryMap.problem(template: "/var/lib/pc/%{local"))
        XCTAssertNotNil(LibraryMap.problem(template: "postgresql:///p?host=/run/postgresql&application_name=%{local}"))
    }

    func testARecipientDelimiterMapsAnExtensionToTheMailbox() {
        let plain = LibraryMap(rule: .template("/l/%{local}@%{domain}.sqlite"))
        let plus = LibraryMap(rule: .template("/l/%{local}@%{domain}.sqlite"), recipientDelimiter: "+-")
        XCTAssertEqual(plain.path(for: "<Alice+Travel@Example.org>"), "/l/alice+travel@example.org.sqlite")
        XCTAssertEqual(plus.path(for: "<Alice+Travel@Example.org>"), "/l/alice@example.org.sqlite")
        XCTAssertEqual(plus.path(for: "bob-lists@example.org"), "/l/bob@example.org.sqlite")
        XCTAssertEqual(plus.path(for: "+only@example.org"), "/l/+only@example.org.sqlite", "an empty mailbox name is not cut to nothing")
        let server = LibraryMap(rule: .template("postgresql:///p"), recipientDelimiter: "+")
        XCTAssertEqual(server.libraries(for: ["alice+x@example.org", "alice@example.org"]),
                       [LibraryMap.Target("postgresql:///p", user: "alice@example.org")])
    }
}

final class MilterScanRequestSharedTests: XCTestCase {
    func testTheSharedLibraryFlagCrossesToTheWorker() {
        let message = Array("Subject: x\r\n\r\nbody\r\n".utf8)
        let one = [LibraryMap.Target("/l/a.sqlite")]
        XCTAssertEqual(MilterScanRequest.decodeShared(MilterScanRequest.encode(libraries: one, sharedLibrary: true, message: message))?.sharedLibrary, true)
        XCTAssertEqual(MilterScanRequest.decodeShared(MilterScanRequest.encode(libraries: one, message: message))?.sharedLibrary, false)
        // Never shared with several libraries: no one library's state is true for every copy.
        let two = one + [LibraryMap.Target("/l/b.sqlite")]
        let decoded = MilterScanRequest.decodeShared(MilterScanRequest.encode(libraries: two, sharedLibrary: true, message: message))
        XCTAssertEqual(decoded?.sharedLibrary, false)
        XCTAssertEqual(decoded?.libraries, two)
        XCTAssertEqual(decoded?.message, message)
    }
}
