import COpenSSL
import Foundation

// The trust store's files: which files of a folder are certificates, the DER of each (PEM or DER,
// not decoded), and where the shipped anchors live.
extension TrustStore {
    static let certificateExtensions: Set<String> = ["pem", "crt", "cer", "der"]

    static func certificateFiles(_ path: String) throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw TrustStoreError(path: path, reason: "no such file or folder")
        }
        guard isDirectory.boolValue else { return [path] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw TrustStoreError(path: path, reason: "cannot be read (\(error.localizedDescription))")
        }
        return names.sorted()
            .filter { !$0.hasPrefix(".") && certificateExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .map { (path as NSString).appendingPathComponent($0) }
    }

    /// The DER of every certificate in a PEM file (`CERTIFICATE` and `X509 CERTIFICATE` blocks,
    /// as PEM_read_bio_X509 takes them), or of the one in a DER file. Not decoded: see `AnchorLookup`.
    static func readCertificates(_ file: String) throws -> [[UInt8]] {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw TrustStoreError(path: file, reason: "cannot be read")
        }
        let bytes = [UInt8](data)
        ERR_clear_error()
        var certs: [[UInt8]] = []
        if bytes.starts(with: Array("-----BEGIN".utf8)) || String(decoding: bytes.prefix(4096), as: UTF8.self).contains("-----BEGIN") {
            bytes.withUnsafeBytes { raw in
                // The memory BIO reads `raw` in place; it is freed before the closure returns.
                guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return }
                defer { BIO_free(bio) }
                while true {
                    var name: UnsafeMutablePointer<CChar>? = nil, header: UnsafeMutablePointer<CChar>? = nil
                    var body: UnsafeMutablePointer<UInt8>? = nil
                    var length = 0
                    guard PEM_read_bio(bio, &name, &header, &body, &length) == 1 else { break }
                    defer { COpenSSL_free(name); COpenSSL_free(header); COpenSSL_free(body) }
                    let label = name.map { String(cString: $0) } ?? ""
                    if label == "CERTIFICATE" || label == "X509 CERTIFICATE", let body {
                        certs.append(Array(UnsafeBufferPointer(start: body, count: length)))
                    }
                }
            }
            ERR_clear_error()  // PEM_read_bio ends with a "no start line" error at EOF
        } else {
            // A DER file holds one certificate: the first element (d2i_X509 ignores what follows).
            if let cert = CMSCertificates.element(bytes[...], at: 0, limit: bytes.count), cert.tag == 0x30, !cert.indefinite {
                certs.append(Array(bytes[cert.start..<cert.end]))
            }
        }
        guard !certs.isEmpty else {
            throw TrustStoreError(path: file, reason: "holds no certificate (PEM or DER): \(OpenSSL.drainErrors())")
        }
        return certs
    }

    // MARK: - Where the shipped anchors live

    /// The folder of shipped anchors (Apple roots + WWDR intermediates), first that exists of:
    /// `$PASSCONDUIT_TRUST_DIR`; `<exe>/../share/passconduit/trust` (an install prefix);
    /// `<exe dir>/trust`; `Config/trust` of the source tree the executable was built in (walking up
    /// from the executable to a folder holding Package.swift).
    package static func shippedDirectory() -> String? {
        // getenv, not ProcessInfo: this runs at every delivery filter start (see FilePaths).
        let explicit = getenv("PASSCONDUIT_TRUST_DIR").map { String(cString: $0) }
        return shippedDirectory(environment: explicit.map { ["PASSCONDUIT_TRUST_DIR": $0] } ?? [:],
                                executable: executablePath())
    }

    static func shippedDirectory(environment: [String: String], executable: String?) -> String? {
        FilePaths.shipped("trust", variable: "PASSCONDUIT_TRUST_DIR", environment: environment, executable: executable,
                          isWanted: FilePaths.isDirectory)
    }

    static func executablePath() -> String? {
        FilePaths.executable() ?? CommandLine.arguments.first
    }
}
