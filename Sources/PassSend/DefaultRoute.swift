#if canImport(Glibc)
import Glibc
#endif

/// The IPv4 address of the interface that carries the default route, read from /proc/net/route
/// and getifaddrs(3): the address a phone on the same network can reach.
package enum DefaultRoute {
    /// The interface of the default route with the lowest metric, from /proc/net/route's text.
    static func interface(routeTable: String) -> String? {
        var best: (name: String, metric: Int)?
        for line in routeTable.split(separator: "\n").dropFirst() {
            let columns = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            // Iface Destination Gateway Flags RefCnt Use Metric Mask …
            guard columns.count >= 8, columns[1] == "00000000", columns[7] == "00000000",
                  let flags = Int(columns[3], radix: 16), flags & 0x1 != 0,  // RTF_UP
                  let metric = Int(columns[6]) else { continue }
            if best == nil || metric < best!.metric { best = (String(columns[0]), metric) }
        }
        return best?.name
    }

    /// The first IPv4 address of `interface`, as text.
    static func ipv4Address(of interface: String) -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let name = entry.pointee.ifa_name, String(cString: name) == interface,
                  let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            // ifa_addr of an AF_INET entry points at a sockaddr_in.
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var inet = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &inet, &text, socklen_t(text.count)) != nil else { continue }
            return String(cString: text)
        }
        return nil
    }

    /// The address on the default route, or nil when there is no default route or it has no
    /// IPv4 address.
    package static func address(routeFile: String = "/proc/net/route") -> String? {
        guard let file = fopen(routeFile, "r") else { return nil }
        defer { fclose(file) }
        var text = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            text += String(cString: buffer)
            if text.utf8.count > 1 << 20 { break }  // a routing table is small; stop on anything odd
        }
        return interface(routeTable: text).flatMap(ipv4Address(of:))
    }
}
