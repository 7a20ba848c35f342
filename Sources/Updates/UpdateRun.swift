import Conduit
import Foundation
import PassStore
import PassUpdate
import Support
import WalletPass

/// What `passconduit update` asked for.
package struct UpdateRequest: Sendable {
    /// The passes named on the command line; nil means every pass with a web service.
    package var ids: [PassID]?
    /// `--register`: register this library as a device for each checked pass.
    package var register = false
    /// Timer mode (`--quiet`): only passes that are due by `UpdateSchedule`.
    package var dueOnly = false
    package var allowUntrusted = false
    /// The whole run's time budget.
    package var timeLimit: TimeInterval = 300
    /// Requests in flight at once (connections to one server are pooled and reused).
    package var concurrency = 8

    package init() {}
}

/// One `update` run: reads what the library knows, talks to each pass's web service through
/// `WebServiceClient`, opens every pass it gets like any other pass, decides with the intake
/// policy (`Intake`, origin `.webService`), and replaces through the library (which keeps the old version and logs
/// the field changes). The library is written twice per run: accepted updates one by one (each
/// its own transaction, re-checked inside it), and every check's result in one batch.
package final class UpdateRun: Sendable {
    let library: any PassLibraryBackend
    let opener: PassOpener
    let client: WebServiceClient
    let schedule: UpdateSchedule
    let now: @Sendable () -> Date
    /// Shared by the libraries of one gateway run: one request per issuer host at a time, and
    /// each host's Retry-After for all of them. nil for a run on one library.
    let gate: IssuerGate?

    package init(library: any PassLibraryBackend, opener: PassOpener, client: WebServiceClient,
                 schedule: UpdateSchedule = UpdateSchedule(), gate: IssuerGate? = nil,
                 now: @escaping @Sendable () -> Date = { Date() }) {
        self.library = library
        self.opener = opener
        self.client = client
        self.schedule = schedule
        self.gate = gate
        self.now = now
    }

    /// `body`, a request to `service`, with the host held for it when a gate is shared; the
    /// server's Retry-After is then kept for the other libraries.
    func gated<T: Sendable>(_ service: WebServiceURL, _ body: () async throws(UpdateFailure) -> T) async throws(UpdateFailure) -> T {
        guard let gate else { return try await body() }
        await gate.acquire(service.host)
        do {
            let value = try await body()
            await gate.release(service.host)
            return value
        } catch {
            if let date = error.retryAfter { await gate.backOff(service.host, until: date) }
            await gate.release(service.host)
            throw error
        }
    }

    struct Candidate: Sendable {
        var pass: StoredPass
        var state: WebServiceState
        var service: WebServiceURL
        var token: String
        var unconditional = false
    }

    /// Checks the passes and returns one outcome per pass, in library order, then the
    /// unregistrations. `progress(done, total)` is called as checks finish.
    package func run(_ request: UpdateRequest, progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> [UpdateOutcome] {
        let started = now()
        // The run's time budget on the monotonic clock (`started` is for the schedule and the log).
        let deadline = ContinuousClock.now + .milliseconds(Int64(request.timeLimit * 1000))
        let passes = try await library.passes()
        var selection = try await select(passes, request, started: started)
        try await library.saveWebServiceStates(selection.refreshed)

        let registrations = try await library.registrations()
        let present = Set(passes.map(\.id))
        var device: String?
        if !registrations.isEmpty || request.register { device = try await library.deviceLibraryIdentifier() }
        var trailing: [UpdateOutcome] = []
        if request.ids == nil, let device {
            trailing = try await unregisterRemoved(registrations, present: present, device: device, deadline: deadline)
        }
        var registered = Set(registrations.filter { present.contains($0.id) }.map(\.id))
        var registeredNow: [PassID: Bool] = [:]
        if request.register, let device {
            registeredNow = try await register(selection.candidates, except: registered, device: device, deadline: deadline)
            registered.formUnion(registeredNow.filter(\.value).keys)
        }
        var newTags: [UpdateTag] = []
        if let device {
            newTags = try await markListed(&selection.candidates, registered: registered, device: device, deadline: deadline)
        }
        let results = await checkInBatches(selection.candidates, request: request, deadline: deadline, progress: progress)

        var outcomes = selection.leading
        var checked: [WebServiceState] = []
        for item in results {
            guard let (outcome, state) = item else { continue }
            var o = outcome
            if let r = registeredNow[o.id] { o.registered = r }
            outcomes.append(o)
            checked.append(state)
        }
        try await library.saveWebServiceStates(checked)
        for t in newTags { try await library.setUpdateTag(t.tag, webServiceURL: t.url, passTypeIdentifier: t.type) }
        return outcomes + trailing
    }

    /// What `select` decided: the passes to check, the outcomes of those it skips, and the
    /// web-service states it read anew from the passes' own pass.json.
    struct Selection {
        var leading: [UpdateOutcome] = []
        var candidates: [Candidate] = []
        var refreshed: [WebServiceState] = []
    }

    /// The passes this run checks: those named (or all), with a web service, retired or not due
    /// left out, the server's Retry-After kept.
    func select(_ passes: [StoredPass], _ request: UpdateRequest, started: Date) async throws -> Selection {
        var states = try await library.webServiceStates()
        let named = request.ids.map(Set.init)
        var selection = Selection()
        for pass in passes {
            if let named, !named.contains(pass.id) { continue }
            let isNamed = named != nil
            var state = states[pass.id] ?? WebServiceState(id: pass.id, sha256: pass.sha256)
            if state.sha256 != pass.sha256 || states[pass.id] == nil {
                // A version this client has not read yet (added, or replaced by mail): its
                // web-service keys come from its pass.json; old validators do not apply to it.
                // A library that cannot hand the bytes over (busy, damaged) fails the run: taken
                // for "no web service", the pass would be saved as one and never checked again.
                let info = opener.webService(of: try await library.export(pass.id))
                state = WebServiceState(id: pass.id, sha256: pass.sha256, webServiceURL: info?.webServiceURL,
                                        authenticationToken: info?.authenticationToken,
                                        checkedAt: states[pass.id]?.checkedAt, outcome: states[pass.id]?.outcome,
                                        http: states[pass.id]?.http, errorCode: states[pass.id]?.errorCode,
                                        message: states[pass.id]?.message)
                states[pass.id] = state
                selection.refreshed.append(state)
            }
            guard let url = state.webServiceURL, let token = state.authenticationToken else {
                if isNamed {
                    selection.leading.append(UpdateOutcome(id: pass.id, kind: .skipped, error: Problem(
                        .noWebService, message: "This pass does not say where to get its updates.",
                        detail: "pass.json has no webServiceURL with an authenticationToken")))
                }
                continue
            }
            if !isNamed {
                if let why = schedule.retired(pass, now: started) {
                    if !request.dueOnly {
                        selection.leading.append(UpdateOutcome(id: pass.id, kind: .skipped, error: Problem(.retired, message: why, detail: "")))
                    }
                    continue
                }
                if request.dueOnly && !schedule.isDue(pass, lastChecked: state.checkedAt, now: started) { continue }
            }
            // The server's Retry-After holds even for a pass named on the command line.
            if let retry = state.retryAfter, retry > started {
                if !request.dueOnly { selection.leading.append(Self.waiting(pass.id, until: retry, detail: "Retry-After")) }
                continue
            }
            let service: WebServiceURL
            do {
                service = try WebServiceURL(url)
            } catch {
                var o = UpdateOutcome(id: pass.id, kind: .skipped, error: error.problem)
                o.temporary = false
                selection.leading.append(o)
                state.checkedAt = started
                state.outcome = o.kind.rawValue
                state.errorCode = error.code.rawValue
                state.message = error.message
                state.http = nil
                selection.refreshed.append(state)
                continue
            }
            // Another library's pass at the same issuer heard a Retry-After in this run.
            if let gate, let retry = await gate.waitUntil(service.host, now: started) {
                if !request.dueOnly {
                    selection.leading.append(Self.waiting(pass.id, until: retry, detail: "Retry-After, for another library's pass at \(service.host)"))
                }
                continue
            }
            selection.candidates.append(Candidate(pass: pass, state: state, service: service, token: token))
        }
        return selection
    }

    /// A pass skipped because its issuer asked to wait (its own Retry-After, or one another
    /// library's pass at the same host heard in this run): a temporary outcome.
    static func waiting(_ id: PassID, until retry: Date, detail: String) -> UpdateOutcome {
        var o = UpdateOutcome(id: id, kind: .skipped, error: Problem(
            .tryLater, message: "The issuer asked to wait until \(DateText.iso(retry)) before asking again.", detail: detail))
        o.retryAfter = retry
        o.temporary = true
        return o
    }

    /// Passes the user removed: tell their issuers (only on a full run; never for a pass still
    /// in the library).
    func unregisterRemoved(_ registrations: [WebServiceRegistration], present: Set<PassID>, device: String,
                           deadline: ContinuousClock.Instant) async throws -> [UpdateOutcome] {
        var trailing: [UpdateOutcome] = []
        for registration in registrations where !present.contains(registration.id) {
            var outcome = UpdateOutcome(id: registration.id, kind: .skipped)
            let result = await unregister(registration, device: device, deadline: deadline)
            switch result {
            case .success(let http):
                try await library.deleteRegistration(registration.id)
                outcome.http = http
                outcome.unregistered = true
            case .failure(let failure):
                outcome.kind = .failed
                outcome.unregistered = false
                outcome.http = failure.http
                outcome.temporary = failure.isTemporary
                outcome.error = Problem(failure.code.problemCode, message: "Could not unregister this removed pass: " + failure.message,
                                      detail: failure.detail)
            }
            trailing.append(outcome)
        }
        return trailing
    }

    /// Registration (opt-in, `--register`) of the candidates not registered yet: whether each
    /// succeeded.
    func register(_ candidates: [Candidate], except registered: Set<PassID>, device: String,
                  deadline: ContinuousClock.Instant) async throws -> [PassID: Bool] {
        var registeredNow: [PassID: Bool] = [:]
        for c in candidates where !registered.contains(c.pass.id) && registeredNow[c.pass.id] != true {
            do {
                _ = try await gated(c.service) { () async throws(UpdateFailure) in
                    try await client.register(c.service, device: device, passTypeIdentifier: c.pass.id.passTypeIdentifier,
                                              serialNumber: c.pass.id.serialNumber, token: c.token, deadline: deadline)
                }
                try await library.saveRegistration(WebServiceRegistration(id: c.pass.id, webServiceURL: c.service.description,
                                                                    authenticationToken: c.token, registeredAt: now()))
                registeredNow[c.pass.id] = true
            } catch {
                registeredNow[c.pass.id] = false
            }
        }
        return registeredNow
    }

    /// A server's `passesUpdatedSince` tag to keep for the next run (nil: ask without one).
    struct UpdateTag {
        var url: String
        var type: String
        var tag: String?
    }

    /// One passesUpdatedSince list per server and pass type, for the registered candidates: those
    /// listed are fetched unconditionally. Returns the tags to keep.
    func markListed(_ candidates: inout [Candidate], registered: Set<PassID>, device: String,
                    deadline: ContinuousClock.Instant) async throws -> [UpdateTag] {
        var newTags: [UpdateTag] = []
        var groups: [String: [Int]] = [:]
        var groupKey: [String: (WebServiceURL, String)] = [:]
        for (index, c) in candidates.enumerated() where registered.contains(c.pass.id) {
            let key = c.service.description + "\u{0}" + c.pass.id.passTypeIdentifier
            groups[key, default: []].append(index)
            groupKey[key] = (c.service, c.pass.id.passTypeIdentifier)
        }
        for (key, indices) in groups.sorted(by: { $0.key < $1.key }) {
            guard let (service, type) = groupKey[key] else { continue }
            let tag = try await library.updateTag(webServiceURL: service.description, passTypeIdentifier: type)
            switch await updatedSerials(service, device: device, type: type, tag: tag, deadline: deadline) {
            case .success(.changed(let serials, let lastUpdated)):
                let listed = Set(serials)
                for i in indices where listed.contains(candidates[i].pass.id.serialNumber) {
                    candidates[i].unconditional = true
                }
                if let lastUpdated, !lastUpdated.isEmpty { newTags.append(UpdateTag(url: service.description, type: type, tag: lastUpdated)) }
            case .success(.nothing):
                break
            case .failure(let failure):
                // After a server error, ask without a tag next time (never a made-up one).
                if failure.code == .tryLater { newTags.append(UpdateTag(url: service.description, type: type, tag: nil)) }
            }
        }
        return newTags
    }

    /// The checks themselves, `concurrency` at a time; every pass gets its own conditional GET.
    /// One result per candidate, in candidate order.
    func checkInBatches(_ work: [Candidate], request: UpdateRequest, deadline: ContinuousClock.Instant,
                        progress: @Sendable (Int, Int) -> Void) async -> [(UpdateOutcome, WebServiceState)?] {
        var results = [(UpdateOutcome, WebServiceState)?](repeating: nil, count: work.count)
        let width = max(1, request.concurrency)
        var start = 0
        var done = 0
        while start < work.count {
            // Batches of `width` keep `width` requests in flight on pooled connections.
            let end = min(work.count, start + width * 4)
            for (index, outcome, state) in await checkAll(work, range: start..<end, width: width, request: request, deadline: deadline) {
                results[index] = (outcome, state)
                done += 1
            }
            progress(done, work.count)
            start = end
        }
        return results
    }

    /// Checks `range` of `work`, at most `width` at a time.
    func checkAll(_ work: [Candidate], range: Range<Int>, width: Int, request: UpdateRequest,
                  deadline: ContinuousClock.Instant) async -> [(Int, UpdateOutcome, WebServiceState)] {
        await withTaskGroup(of: (Int, UpdateOutcome, WebServiceState).self, returning: [(Int, UpdateOutcome, WebServiceState)].self) { group in
            var collected: [(Int, UpdateOutcome, WebServiceState)] = []
            var next = range.lowerBound
            // Starts the check of work[next]: `width` at first, then one each time one ends.
            func startNext() {
                let index = next
                let candidate = work[index]
                group.addTask { [self] in
                    let checked = await self.check(candidate, request: request, deadline: deadline)
                    return (index, checked.0, checked.1)
                }
                next += 1
            }
            while next < range.upperBound && next - range.lowerBound < width { startNext() }
            while let item = await group.next() {
                collected.append(item)
                if next < range.upperBound { startNext() }
            }
            return collected
        }
    }

    func unregister(_ r: WebServiceRegistration, device: String, deadline: ContinuousClock.Instant) async -> Result<Int, UpdateFailure> {
        do {
            let service = try WebServiceURL(r.webServiceURL)
            return .success(try await gated(service) { () async throws(UpdateFailure) in
                try await client.unregister(service, device: device, passTypeIdentifier: r.id.passTypeIdentifier,
                                            serialNumber: r.id.serialNumber, token: r.authenticationToken, deadline: deadline)
            })
        } catch {
            return .failure(error)
        }
    }

    func updatedSerials(_ service: WebServiceURL, device: String, type: String, tag: String?, deadline: ContinuousClock.Instant) async -> Result<SerialList, UpdateFailure> {
        do {
            return .success(try await gated(service) { () async throws(UpdateFailure) in
                try await client.updatedSerials(service, device: device, passTypeIdentifier: type, tag: tag, deadline: deadline)
            })
        } catch {
            return .failure(error)
        }
    }

    /// One pass: the request, then open, decide and replace.
    func check(_ c: Candidate, request: UpdateRequest, deadline: ContinuousClock.Instant) async -> (UpdateOutcome, WebServiceState) {
        var state = c.state
        let id = c.pass.id
        state.checkedAt = now()
        state.retryAfter = nil
        func finish(_ o: UpdateOutcome) -> (UpdateOutcome, WebServiceState) {
            state.outcome = o.kind.rawValue
            state.http = o.http
            state.errorCode = o.error?.code.rawValue
            state.message = o.error?.message ?? Self.summary(o)
            return (o, state)
        }
        let fetch: PassFetch
        do {
            fetch = try await gated(c.service) { () async throws(UpdateFailure) in
                try await client.fetchPass(c.service, passTypeIdentifier: id.passTypeIdentifier, serialNumber: id.serialNumber,
                                           token: c.token, lastModified: state.lastModified, etag: state.etag,
                                           unconditional: c.unconditional, deadline: deadline)
            }
        } catch {
            // The server's answer was not a pass: a refusal of ours when it sent something it
            // must not (too large, a redirect elsewhere, a status the protocol has no place for),
            // a failure otherwise.
            let refusedByUs: Set<UpdateFailure.Code> = [.tooLarge, .redirectRefused, .badResponse]
            var o = UpdateOutcome(id: id, kind: refusedByUs.contains(error.code) ? .refused : .failed, http: error.http,
                                  error: error.problem)
            o.temporary = error.isTemporary
            o.retryAfter = error.retryAfter
            state.retryAfter = error.retryAfter
            return finish(o)
        }
        switch fetch {
        case .notModified(let lastModified, let etag):
            state.lastModified = lastModified
            state.etag = etag
            return finish(UpdateOutcome(id: id, kind: .unchanged, http: 304))
        case .updated(let bytes, let lastModified, let etag):
            let verdict = opener.open(bytes)
            // The very bytes stored: unchanged, whatever verifying them today says (a pass added
            // under a --trust folder this run was not given is not "refused" for being the same).
            if verdict.sha256 == c.pass.sha256 {
                state.lastModified = lastModified
                state.etag = etag
                return finish(UpdateOutcome(id: id, kind: .unchanged, http: 200))
            }
            let arrival = Intake.Arrival(verdict, record: PassRecordMapping.record(verdict: verdict, bytes: bytes, source: nil, receivedAt: now()))
            let versus = arrival.record.map { LibraryState.of($0, against: c.pass) }
            switch Intake(.webService(allowUntrusted: request.allowUntrusted)).decide(arrival, state: versus, stored: c.pass) {
            case .nothing:
                // The same bytes as stored.
                state.lastModified = lastModified
                state.etag = etag
                return finish(UpdateOutcome(id: id, kind: .unchanged, http: 200))
            case .refuse(let code, let message, let detail):
                return finish(UpdateOutcome(id: id, kind: .refused, http: 200, error: Problem(code, message: message, detail: detail)))
            case .add, .offer:
                // Not a web-service decision (the pass is in the library); never taken.
                return finish(UpdateOutcome(id: id, kind: .refused, http: 200, error: Problem(
                    .notInLibrary, message: "The pass is no longer in your library.", detail: "")))
            case .replace:
                guard var record = arrival.record else {   // the policy refuses a pass without pass.json first
                    return finish(UpdateOutcome(id: id, kind: .refused, http: 200, error: Problem(
                        .badJSON, message: "The update is not a genuine pass: its pass.json cannot be read.", detail: "")))
                }
                record.source = c.pass.source
                do {
                    let changes = try await library.replaceIfChanged(with: record, allowUntrusted: request.allowUntrusted)
                    let info = opener.webService(of: bytes)
                    state = WebServiceState(id: id, sha256: verdict.sha256, webServiceURL: info?.webServiceURL ?? c.state.webServiceURL,
                                            authenticationToken: info?.authenticationToken ?? c.token,
                                            lastModified: lastModified, etag: etag, checkedAt: state.checkedAt)
                    guard let changes else {
                        // Another process stored these very bytes first: nothing left to do.
                        return finish(UpdateOutcome(id: id, kind: .unchanged, http: 200))
                    }
                    return finish(UpdateOutcome(id: id, kind: .updated, http: 200, changes: changes))
                } catch let error as LibraryError {
                    return finish(UpdateOutcome(id: id, kind: error.kind == .refused ? .refused : .failed, http: 200, error: Problem(
                        error.kind == .refused ? .libraryRefused : .library, message: "The update could not be stored.",
                        detail: error.description)))
                } catch {
                    return finish(UpdateOutcome(id: id, kind: .failed, http: 200, error: Problem(
                        .library, message: "The update could not be stored.", detail: "\(error)")))
                }
            }
        }
    }

    /// The sentence `show` repeats for a check without an error.
    static func summary(_ o: UpdateOutcome) -> String {
        switch o.kind {
        case .updated:
            let messages = o.changes.compactMap(\.message)
            return messages.isEmpty ? "Updated." : "Updated: " + messages.joined(separator: " ")
        case .unchanged: return "No newer version."
        default: return o.kind.rawValue
        }
    }
}
