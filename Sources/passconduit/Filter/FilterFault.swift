#if canImport(Glibc)
import Glibc
#endif
import DeliveryFilter

/// Fault injection for the delivery-filter tests (mta-conventions §7 N1): with
/// `PASSCONDUIT_FILTER_FAULT` set, the scanner misbehaves in the named way, so tests can show the
/// message survives it in the real binary. `crash` traps, `hang` sleeps past any deadline,
/// `error` throws, `slow` sleeps 200 ms and then scans, `scribble` bends the crash guard's state
/// pointer (as memory corruption could) and then traps.
enum FilterFault: String, Sendable {
    case crash, hang, error, slow, scribble

    static let variable = "PASSCONDUIT_FILTER_FAULT"

    static func isSet(_ environment: [String: String]) -> Bool {
        environment[variable].flatMap(FilterFault.init(rawValue:)) != nil
    }

    static func wrap(_ scanner: any FilterPassScanning, environment: [String: String]) -> any FilterPassScanning {
        guard let name = environment[variable], let fault = FilterFault(rawValue: name) else { return scanner }
        return FaultyScanner(fault: fault, inner: scanner)
    }

    struct FaultyScanner: FilterPassScanning {
        struct Injected: Error {}
        var fault: FilterFault
        var inner: any FilterPassScanning
        func scan(message: [UInt8]) throws -> [FilterPassReport] {
            switch fault {
            case .crash:
                let empty: [Int] = []
                _ = empty[message.count + 1]   // an out-of-bounds trap, as a parser bug would be
                return []
            case .hang:
                while true { sleep(60) }
            case .error:
                throw Injected()
            case .slow:
                usleep(200_000)
                return try inner.scan(message: message)
            case .scribble:
                FilterScanGuard.scribbleForTests()
                let empty: [Int] = []
                _ = empty[message.count + 1]
                return []
            }
        }
    }
}
