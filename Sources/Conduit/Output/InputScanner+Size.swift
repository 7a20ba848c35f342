// A byte count as people read it, in sentences about limits.
extension InputScanner {
    /// A limit as people read it: "32 MB" for 33554432 bytes (limits are whole mebibytes by
    /// default), else the exact byte count.
    package static func size(_ bytes: Int) -> String {
        let mebibyte = 1024 * 1024
        if bytes >= mebibyte, bytes % mebibyte == 0 { return "\(bytes / mebibyte) MB" }
        if bytes >= 1024, bytes % 1024 == 0 { return "\(bytes / 1024) KB" }
        return "\(bytes) bytes"
    }
}
