/// The delivery filter's decision for one spooled message, and the writing of it: the message
/// unchanged, the message with our header lines (and without forged ones), or nothing (exit 75).
/// `passconduit filter` (`FilterCommand`) and in-process callers (tests) share this code path.
package struct DeliveryFilter: Sendable {
    package var options: FilterOptions
    package var headerWriter = FilterHeaderWriter()
    /// How much of the message start is searched for the header block (`Limits`).
    var headerScanBytes: Int { options.config.limits.filterHeaderScanBytes }

    package init(options: FilterOptions) {
        self.options = options
    }

    /// Decides what to write for the message in `spool`. `scan` runs only for a message within the
    /// size cap; a failure there passes the message through unchanged (or fails closed).
    package func plan(_ spool: FilterSpool,
                      scan: ([UInt8]) -> Result<[FilterPassReport], FilterError>) -> FilterPlan {
        var plan = FilterPlan(byteCount: spool.byteCount)
        // The header is located once: it says whether this is a notice (passed unscanned), and
        // where our fields go.
        let layout: FilterMessageLayout
        do {
            let prefixCount = min(spool.byteCount, headerScanBytes)
            layout = FilterMessageLayout.locate(ArraySlice(try spool.bytes(in: 0..<prefixCount)),
                                                isWholeMessage: prefixCount == spool.byteCount)
        } catch {
            return failed(plan, .from(error, .spoolFailed), nil)
        }
        if layout.isNotice {
            plan.notice = true
            return unscanned(plan, spool)
        }
        let message: [UInt8]?
        do {
            message = try spool.contents(maxBytes: options.maxScanBytes)
        } catch {
            return failed(plan, .from(error, .spoolFailed), nil)
        }
        if let message {
            switch scan(message) {
            case .success(let reports): plan.reports = reports
            case .failure(let error): return failed(plan, error, spool)
            }
        } else {
            plan.oversize = true
        }
        guard options.headers else { return plan }

        let edits = headerEdits(plan.reports, layout)
        if edits.isEmpty { return plan }
        plan.output = .rewritten(edits, layout: layout)
        return plan
    }

    /// The header edits for `reports` in a message whose header is laid out as `layout`: our
    /// fields for the reports on top (unless the first line is a continuation line), every
    /// incoming field with one of our names removed.
    package func headerEdits(_ reports: [FilterPassReport], _ layout: FilterMessageLayout) -> HeaderEdits {
        HeaderEdits(insert: layout.canInsert ? headerWriter.fields(for: reports) : [], remove: layout.ownFields)
    }

    /// The header edits for `reports` in `message`, a whole message held in memory (a milter's
    /// view): empty when `options.headers` is off. Only the first `headerScanBytes` are searched
    /// for our fields.
    package func headerEdits(for message: ArraySlice<UInt8>, reports: [FilterPassReport]) -> HeaderEdits {
        guard options.headers else { return HeaderEdits() }
        let prefix = message.prefix(headerScanBytes)
        return headerEdits(reports, FilterMessageLayout.locate(prefix, isWholeMessage: prefix.count == message.count))
    }

    private func failed(_ plan: FilterPlan, _ error: FilterError, _ spool: FilterSpool?) -> FilterPlan {
        var plan = plan
        plan.error = error
        plan.reports = []
        if options.failClosed || error.retryLater || (error.isLibraryError && options.tempfailsOnLibraryError) {
            plan.output = .nothing
            return plan
        }
        return spool.map { unscanned(plan, $0) } ?? plan
    }

    /// `plan` delivering the message unscanned (a bad option or config, a failed scan, the
    /// deadline): the message as it came, without any field of our names — a sender must not get
    /// forged `X-Passconduit` lines delivered by making the filter give up. Byte-identical when
    /// there is none (or with `--no-headers`, whose output is always the input).
    package func unscanned(_ plan: FilterPlan, _ spool: FilterSpool) -> FilterPlan {
        var plan = plan
        plan.output = .unchanged
        guard options.headers else { return plan }
        let prefixCount = min(spool.byteCount, headerScanBytes)
        guard let prefix = try? spool.bytes(in: 0..<prefixCount) else { return plan }
        let layout = FilterMessageLayout.locate(ArraySlice(prefix), isWholeMessage: prefixCount == spool.byteCount)
        if !layout.ownFields.isEmpty {
            plan.output = .rewritten(HeaderEdits(remove: layout.ownFields), layout: layout)
        }
        return plan
    }

    /// `message` as delivered when the scan gives up (the pipe filter's guard writes these bytes
    /// at the deadline or on a crash): without fields of our names, as `unscanned` plans it.
    package func unscannedBytes(_ message: [UInt8]) -> [UInt8] {
        guard options.headers else { return message }
        let prefix = message.prefix(headerScanBytes)
        let layout = FilterMessageLayout.locate(prefix, isWholeMessage: prefix.count == message.count)
        guard !layout.ownFields.isEmpty else { return message }
        var out: [UInt8] = []
        out.reserveCapacity(message.count)
        var position = 0
        for removed in layout.ownFields {
            out += message[position..<removed.range.lowerBound]
            position = removed.range.upperBound
        }
        out += message[position...]
        return out
    }

    /// Writes the planned output for `spool` to `sink`. Throws only when the sink does.
    package func write(_ plan: FilterPlan, _ spool: FilterSpool,
                       to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        switch plan.output {
        case .nothing:
            return
        case .unchanged:
            try spool.copy(0..<spool.byteCount, to: sink)
        case .rewritten(let edits, let layout):
            try spool.copy(0..<layout.insertionOffset, to: sink)
            try edits.insertedLines(lineEnding: layout.lineEnding).withUnsafeBytes { try sink($0) }
            var position = layout.insertionOffset
            for removed in edits.remove {
                try spool.copy(position..<removed.range.lowerBound, to: sink)
                position = removed.range.upperBound
            }
            try spool.copy(position..<spool.byteCount, to: sink)
        }
    }

    /// In-process filtering of one message held in memory: the output bytes (nil = exit 75) and
    /// the plan. Used by tests and by callers that already hold the message.
    package func filter(_ message: [UInt8], runner: FilterScanRunner, makeScanner: @escaping FilterScannerFactory) -> (output: [UInt8]?, plan: FilterPlan) {
        let spool: FilterSpool
        do {
            spool = try FilterSpool(bytes: message)
        } catch {
            var plan = FilterPlan(byteCount: message.count)
            plan.error = .from(error, .spoolFailed)
            plan.output = .nothing
            return (nil, plan)
        }
        let plan = self.plan(spool) { runner.run($0, makeScanner: makeScanner) }
        if case .nothing = plan.output { return (nil, plan) }
        var out: [UInt8] = []
        out.reserveCapacity(message.count + 512)
        do {
            try write(plan, spool) { out.append(contentsOf: $0) }
        } catch {
            return (nil, plan)   // the in-memory sink does not throw
        }
        return (out, plan)
    }
}
