import COpenSSL
import Foundation
import CCryptoLazy   // links the trampolines that load the library on first use (script/gen-lazy-shims)
import Support

/// Small helpers over OpenSSL's C API (macros Swift can't import, error queue, names, times).
enum OpenSSL {
    /// libcrypto, loaded on first use (CCryptoLazy): TrustStore.load loads it before its first call.
    static let library = NativeLibrary(purpose: "checking pass signatures", load: ccryptolazy_load)

    /// Drains the thread's OpenSSL error queue into one line (reason plus the "data" text, which
    /// carries details such as "Verify error: certificate has expired").
    static func drainErrors() -> String {
        var parts: [String] = []
        while true {
            var data: UnsafePointer<CChar>? = nil
            var flags: Int32 = 0
            let code = ERR_get_error_all(nil, nil, nil, &data, &flags)
            if code == 0 { break }
            var text = ERR_reason_error_string(code).map { String(cString: $0) } ?? "error \(code)"
            if flags & ERR_TXT_STRING != 0, let data, data.pointee != 0 { text += " (\(String(cString: data)))" }
            if !parts.contains(text) { parts.append(text) }
        }
        return parts.isEmpty ? "unknown OpenSSL error" : parts.joined(separator: "; ")
    }

    /// A distinguished name as one RFC 2253 line (last RDN first: "C=US,O=…,CN=…,UID=…").
    static func oneLine(_ name: OpaquePointer?) -> String {
        guard let name, let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        // RFC 2253 order and escaping, but UTF-8 kept as UTF-8 (XN_FLAG_RFC2253 would escape it).
        let flags = UInt(ASN1_STRFLGS_ESC_2253 | ASN1_STRFLGS_ESC_CTRL | ASN1_STRFLGS_UTF8_CONVERT) | UInt(XN_FLAG_SEP_COMMA_PLUS | XN_FLAG_DN_REV)
        guard X509_NAME_print_ex(bio, name, 0, flags) >= 0 else { return "" }
        return bioString(bio)
    }

    static func bioString(_ bio: OpaquePointer) -> String {
        var pointer: UnsafeMutablePointer<CChar>? = nil
        // BIO_get_mem_data is a macro over BIO_ctrl(BIO_CTRL_INFO).
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &pointer)
        guard length > 0, let pointer else { return "" }
        // The memory BIO owns `length` bytes at `pointer` until BIO_free in the caller.
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    /// The first entry of `nid` in a name, as UTF-8.
    static func nameEntry(_ name: OpaquePointer?, nid: Int32) -> String? {
        guard let name else { return nil }
        let index = X509_NAME_get_index_by_NID(name, nid, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index), let data = X509_NAME_ENTRY_get_data(entry) else {
            return nil
        }
        return utf8(data)
    }

    static func utf8(_ string: UnsafePointer<ASN1_STRING>) -> String? {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = ASN1_STRING_to_UTF8(&out, string)
        guard length >= 0, let out else { return nil }
        defer { COpenSSL_free(out) }
        // ASN1_STRING_to_UTF8 allocated exactly `length` bytes at `out`; freed after the copy.
        return String(decoding: UnsafeBufferPointer(start: out, count: Int(length)), as: UTF8.self)
    }

    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    /// Certificates of a STACK_OF(X509), borrowed (not up-referenced).
    static func certificates(_ stack: OpaquePointer?) -> [OpaquePointer] {
        guard let stack else { return [] }
        let n = COpenSSL_sk_X509_num(stack)
        return n <= 0 ? [] : (0..<n).compactMap { COpenSSL_sk_X509_value(stack, $0) }
    }

    static func sha256Fingerprint(_ cert: OpaquePointer) -> String {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(cert, EVP_sha256(), &out, &length) == 1 else { return "" }
        return Digest.hexString(out.prefix(Int(length)))
    }

    /// "2025-06-30" in UTC.
    static func day(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }

    /// "2025-03-01 10:00:00 UTC".
    static func moment(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d UTC", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
