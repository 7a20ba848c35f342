import Foundation

/// Bytes of a file in this target's `Fixtures/` folder (origins in Fixtures/README.md).
enum FixtureFile {
    static func url(_ name: String) -> URL {
        Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil)!
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(name)))
    }
}
