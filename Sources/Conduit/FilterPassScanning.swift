/// "Scan these message bytes, do the library work, say what was found": the one thing the
/// delivery filter needs from the rest of Conduit. `FilterScanner` is the real one (PassScanner +
/// PassLibrary); tests may bring their own to exercise spooling, headers and deadlines.
package protocol FilterPassScanning {
    func scan(message: [UInt8]) throws -> [FilterPassReport]
}

/// Builds the scanner where the scan runs (in a child process the library is opened there, so a
/// lock or a slow disk counts against the deadline and dies with the child).
package typealias FilterScannerFactory = @Sendable () throws -> any FilterPassScanning
