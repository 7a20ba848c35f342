import XCTest
@testable import Conduit
import MailMIME
import TestRandom

/// The per-part shortcuts of PassScanner.scanMessage (issue 17) decide as the full checks do: a
/// part whose parsed type is not application/… has no pass or TNEF type whatever its essence,
/// and `names(of:)` lists the same names as the three-candidate list it replaced.
final class PartCheckShortcutTests: XCTestCase {
    static func referenceNames(_ part: MIMEPart) -> [String] {
        var names: [String] = []
        for name in [part.filename, part.disposition?.parameters["filename"], part.contentType.parameters["name"]] {
            if let name, !name.isEmpty, !names.contains(name) { names.append(name) }
        }
        return names
    }

    func testShortcutsMatchTheFullChecks() {
        let types = ["text/plain", "Application/VND.Apple.PKPass", "APPLICATION/ms-tnef", "application/vnd.ms-tnef (x)",
                     " application / vnd.apple.pkpasses ", "app\u{212A}ication/x", "application", "image/png", "x/y",
                     "multipart/mixed; boundary=b", "message/rfc822", "Application/Octet-Stream", "appli cation/vnd.apple.pkpass"]
        let dispositions = ["", "Content-Disposition: attachment\n", "Content-Disposition: attachment; filename=\"t.pkpass\"\n",
                            "Content-Disposition: inline; filename=\"\"\n", "Content-Disposition: attachment; filename*=utf-8''winmail.dat\n"]
        let names = ["", "; name=\"t.pkpass\"", "; name=\"\"", "; name=WINMAIL.DAT", "; charset=utf-8"]
        var checked = 0
        for type in types {
            for disposition in dispositions {
                for name in names {
                    let message = MIMEParser.parse(Array("Content-Type: \(type)\(name)\n\(disposition)\nbody\n".utf8))
                    for part in message.parts {
                        XCTAssertEqual(PassScanner.names(of: part), Self.referenceNames(part), "\(type) \(disposition) \(name)")
                        if !PassScanner.mayBeApplication(part) {
                            let essence = Detection.essence(of: part.contentType.mimeType)
                            XCTAssertFalse(essence.hasPrefix("application/"), "\(type): \(essence)")
                            XCTAssertNil(Detection.labels(mimeType: part.contentType.mimeType, names: []).kind)
                        }
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 300)
    }
}
