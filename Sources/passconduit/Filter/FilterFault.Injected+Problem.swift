import DeliveryFilter
import Support

extension FilterFault.FaultyScanner.Injected: ProblemReporting {
    /// The scan failure a test asked for (`PASSCONDUIT_FILTER_FAULT=error`), with the filter's
    /// code and sentence for a scan that failed.
    var problem: Problem {
        Problem(.scanFailed, message: FilterError.message(for: .scanFailed), detail: "\(FilterFault.variable)=error")
    }
}
