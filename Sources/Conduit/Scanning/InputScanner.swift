import Foundation
import MailMIME
#if canImport(Glibc)
import Glibc
#endif
import Support

/// Turns what the user names — files, mbox files, Maildir folders, a .pkpass/.pkpasses, "-" for
/// stdin — into messages and passes. The kind of a file is found from its content, never its
/// name. A bad input yields one `InputProblem` and scanning goes on with the next one.
package struct InputScanner: Sendable {
    package let scanner: PassScanner
    /// Threads that scan messages of a mailbox at once (Maildir files, mbox messages); results are
    /// still reported in input order. `workerCount()` by default.
    package var workers: Int

    /// Items in flight at most with several workers (taken and not yet reported), and bytes of
    /// mbox messages held and not yet scanned (plus the one message that crosses the limit).
    /// 8 MB is what two batches of 4 MB held before (the synthetic mbox of Benchmarks/scan peaked
    /// at 63 of the 64 MB allowed with twice that, issue 17). 1024 items: a Maildir item is a
    /// path and a result, and the window must be deep enough that the other workers go on while
    /// the calling thread scans a slow message (a uuencoded zip: about 12 ms, ~800 messages).
    static let windowItems = 1024
    static let windowBytes = 8 << 20

    package init(scanner: PassScanner, workers: Int = InputScanner.workerCount()) {
        self.scanner = scanner
        self.workers = max(1, workers)
    }

    /// `PASSCONDUIT_WORKERS` (a number; 1 scans on one core) when set, else the usable CPUs, at
    /// most 4 (scanning is bound by memory bandwidth beyond that).
    package static func workerCount(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        if let text = environment["PASSCONDUIT_WORKERS"], let n = Int(text.trimmingCharacters(in: .whitespaces)), n >= 1 {
            return min(n, 64)
        }
        return max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))
    }

    /// Scans one input ("-" = stdin), reporting as it goes. `input` is a `PathBytes` carrier:
    /// a name that is not UTF-8 is opened with its exact bytes.
    package func scan(_ input: String, emit: (ScanEvent) -> Void) {
        if input == "-" {
            scanDescriptor(0, input: input, emit: emit)
            return
        }
        var info = stat()
        guard PathBytes.stat(input, &info) == 0 else {
            emit(.problem(InputProblem(input: input, message: Self.reason(errno, verb: "cannot be opened"), code: .inputUnavailable)))
            return
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            scanMaildir(input, emit: emit)
            return
        }
        let fd = PathBytes.open(input, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            emit(.problem(InputProblem(input: input, message: Self.reason(errno, verb: "cannot be read"), code: .inputUnavailable)))
            return
        }
        defer { close(fd) }
        scanDescriptor(fd, input: input, emit: emit)
    }

    func scanMaildir(_ path: String, subfolders: Bool = true, emit: (ScanEvent) -> Void) {
        var reader: MaildirReader
        do {
            reader = try MaildirReader(path: path, limits: scanner.limits.mime)
        } catch let error as MailboxError where error.code != .notAMaildir {
            emit(.problem(InputProblem(input: path, message: "cannot be read as a Maildir: \(error.detail) \(error.path)", code: .inputUnavailable)))
            return
        } catch {
            emit(.problem(InputProblem(input: path, message: "is a folder but not a Maildir (it has no cur/ or new/ folder)", code: .inputUnavailable)))
            return
        }
        // Each worker reads its own files: opening and reading are a good part of a Maildir's cost.
        // An item is only the file's position: the workers open it relative to its folder, and
        // the listing, shared and never changed, is not retained and released once per item.
        var next = 0
        let count = reader.count
        run(input: path, emit: emit, maildir: reader) {
            guard next < count else { return nil }
            next += 1
            return .file(position: next - 1)
        }
        for folder in subfolders ? Self.maildirPlusPlusFolders(of: path) : [] {
            scanMaildir(folder, subfolders: false, emit: emit)
        }
    }

    /// Folders of one Maildir searched at most (a crafted tree must end somewhere).
    static let maxMaildirFolders = 10_000

    func scanDescriptor(_ fd: Int32, input: String, emit: (ScanEvent) -> Void) {
        var prefix: [UInt8]
        do {
            // What an input is (a From_ line, a zip signature, binary data) shows in its first bytes.
            prefix = try Self.readUpTo(fd, count: max(scanner.limits.sniffBytes, Limits.minimumSniffBytes))
        } catch {
            emit(.problem(InputProblem(input: input, message: Self.reason(error.code, verb: "cannot be read"), code: .inputReadFailed)))
            return
        }
        if prefix.isEmpty {
            emit(.problem(InputProblem(input: input, message: "is empty", code: .inputUnavailable)))
            return
        }
        let named = input == "-" ? nil : Detection.kindForName(input)
        let (shape, skipped) = Self.shape(&prefix, named: named)
        // A named regular file is mapped (its first bytes are at offset 0: it was opened here);
        // stdin, pipes and files past the mapping cap are streamed.
        let mappable = input != "-"
        switch shape {
        case .pass:
            scanBarePass(fd, prefix: prefix, input: input, named: named, emit: emit)
        case .binary:
            emit(.problem(InputProblem(input: input, message: "is binary data, neither a mail message nor a Wallet pass", code: .inputUnusable)))
        case .mbox:
            if mappable, var reader = MboxReader(mappedFile: fd, skip: skipped, limits: scanner.limits.mime, name: input) {
                read(&reader, input: input, emit: emit)
            } else {
                var reader = MboxReader(fileDescriptor: fd, prefix: prefix, limits: scanner.limits.mime, name: input)
                read(&reader, input: input, emit: emit)
            }
        case .message:
            if mappable, var reader = SingleMessageReader(mappedFile: fd, skip: skipped, limits: scanner.limits.mime, name: input) {
                read(&reader, input: input, emit: emit)
            } else {
                var reader = SingleMessageReader(fileDescriptor: fd, prefix: prefix, limits: scanner.limits.mime, name: input)
                read(&reader, input: input, emit: emit)
            }
        }
    }

    /// Scans an input held in memory (an upload to the web wallet), named `input` (a file name,
    /// which decides as a path's does): found by content exactly as a file with these bytes is,
    /// and read from memory, never written anywhere.
    package func scan(bytes: ArraySlice<UInt8>, name input: String, emit: (ScanEvent) -> Void) {
        var prefix = Array(bytes.prefix(max(scanner.limits.sniffBytes, Limits.minimumSniffBytes)))
        if prefix.isEmpty {
            emit(.problem(InputProblem(input: input, message: "is empty", code: .inputUnavailable)))
            return
        }
        let named = Detection.kindForName(input)
        let (shape, skipped) = Self.shape(&prefix, named: named)
        switch shape {
        case .pass:
            scanBarePass(Array(bytes), input: input, named: named, emit: emit)
        case .binary:
            emit(.problem(InputProblem(input: input, message: "is binary data, neither a mail message nor a Wallet pass", code: .inputUnusable)))
        case .mbox:
            var reader = MboxReader(bytes: bytes, skip: skipped, limits: scanner.limits.mime, name: input)
            read(&reader, input: input, emit: emit)
        case .message:
            var reader = SingleMessageReader(bytes: bytes, skip: skipped, limits: scanner.limits.mime, name: input)
            read(&reader, input: input, emit: emit)
        }
    }

    /// What an input is, as its first bytes show.
    enum Shape { case pass, binary, mbox, message }

    /// The shape of an input from its first bytes, and how many bytes of noise before a message
    /// were dropped from `prefix` (they belong to no message).
    static func shape(_ prefix: inout [UInt8], named: CandidateKind?) -> (Shape, skipped: Int) {
        // Windows editors save a UTF-8 byte order mark, and messages copied out of webmail often
        // start with blank lines; neither belongs to the message, and left in place they turn
        // its whole header into body text, hiding its attachments.
        let noise = leadingNoise(prefix)
        var skipped = 0
        if noise > 0, noise < prefix.count, startsLikeMail(Array(prefix[noise...])) {
            prefix.removeFirst(noise)
            skipped = noise
        }
        // A zip is a pass or a bundle, or nothing we read. A file the user named *.pkpass is
        // opened as a pass whatever it holds, so its verdict says what is wrong with it.
        if ZipSignature.starts(prefix[...]) || (named != nil && !startsLikeMail(prefix)) {
            return (.pass, skipped)
        }
        if !startsLikeMail(prefix) && looksBinary(prefix) { return (.binary, skipped) }
        switch MailboxFormat.detect(prefix: prefix[...]) {
        case .mbox: return (.mbox, skipped)
        case .message, .maildir: return (.message, skipped)
        }
    }

    /// A whole input that is a zip or is named like a pass: a .pkpass or a .pkpasses, decided by
    /// its central directory, else by its name (`named`).
    func scanBarePass(_ fd: Int32, prefix: [UInt8], input: String, named: CandidateKind?, emit: (ScanEvent) -> Void) {
        let cap = scanner.limits.pass.maxArchiveBytes
        var bytes = prefix
        do {
            let rest = try Self.readUpTo(fd, count: cap + 1 - bytes.count)
            bytes += rest
        } catch {
            emit(.problem(InputProblem(input: input, message: Self.reason(error.code, verb: "cannot be read"), code: .inputReadFailed)))
            return
        }
        scanBarePass(bytes, input: input, named: named, emit: emit)
    }

    /// The bytes of a whole input that is a zip or is named like a pass.
    func scanBarePass(_ bytes: [UInt8], input: String, named: CandidateKind?, emit: (ScanEvent) -> Void) {
        let cap = scanner.limits.pass.maxArchiveBytes
        guard bytes.count <= cap else {
            emit(.problem(InputProblem(input: input, message: "is a zip archive larger than \(Self.size(cap)), too large for a Wallet pass", code: .inputUnusable)))
            return
        }
        let byContent = scanner.contentKind(bytes)
        guard let kind = byContent ?? named else {
            emit(.problem(InputProblem(input: input, message: "is a zip archive but not a Wallet pass (no pass.json inside)", code: .inputUnusable)))
            return
        }
        var reasons: [DetectionReason] = []
        if named != nil { reasons.append(.fileExtension) }
        if byContent != nil { reasons.append(.magic) }
        let source = PassSourceInfo(input: input, detectedBy: reasons)
        for found in scanner.scanPassBytes(bytes, kind: kind, source: source) { emit(.found(found)) }
    }

    /// One unit of work for a worker: a message in hand, or a Maildir file to read (its
    /// position in the `MaildirReader` that `run` was given).
    enum Item: Sendable {
        case message(MailboxMessage)
        case file(position: Int)
    }

    /// What one item gave: its events in order, and whether it was a message read (for progress).
    struct Outcome: Sendable {
        var events: [ScanEvent] = []
        var read = false
        var bytes = 0
    }

    func read<R: MessageReader>(_ reader: inout R, input: String, emit: (ScanEvent) -> Void) {
        var messages = 0
        var failure: InputProblem?
        run(input: input, emit: emit) {
            guard failure == nil else { return nil }
            do {
                guard let message = try reader.next() else { return nil }
                messages += 1
                return .message(message)
            } catch let error as MailboxError {
                failure = InputProblem(input: input, message: "stopped reading after \(messages) message(s): \(Self.plain(error.detail))", code: .inputReadFailed)
            } catch {
                failure = InputProblem(input: input, message: "stopped reading after \(messages) message(s): \(error)", code: .inputReadFailed)
            }
            return nil
        }
        if let failure { emit(.problem(failure)) }
    }

    /// Takes items from `next` (on this thread), scans them on `workers` threads (`OrderedPipeline`:
    /// a bounded window, no per-batch wait) and reports every item's events in input order, with
    /// progress after each message. With one worker everything runs on this thread, in the same
    /// order: results never depend on it.
    func run(input: String, emit: (ScanEvent) -> Void, maildir: MaildirReader? = nil, next: () -> Item?) {
        var messages = 0
        var bytes = 0
        func report(_ outcome: Outcome) {
            for event in outcome.events { emit(event) }
            if outcome.read {
                messages += 1
                bytes += outcome.bytes
                emit(.progress(input: input, messages: messages, bytes: bytes))
            }
        }
        if workers <= 1 {
            while let item = next() { report(process(item, input: input, maildir: maildir)) }
            return
        }
        let scanner = self
        OrderedPipeline.run(
            workers: workers, window: Self.windowItems, windowBytes: Self.windowBytes,
            next: {
                guard let item = next() else { return nil }
                // A message's size whether it is held or still a range of a mapped mbox (whose
                // pages stay in memory until it is scanned, see ChunkedInput.releaseDistance).
                if case .message(let m) = item { return (item, m.oversize ? 0 : m.byteCount) }
                return (item, 0)
            },
            process: { scanner.process($0, input: input, maildir: maildir) },
            report: report)
    }

    /// Reads (for a Maildir file, from `maildir`) and scans one item; never throws, problems
    /// become events.
    func process(_ item: Item, input: String, maildir: MaildirReader?) -> Outcome {
        var outcome = Outcome()
        let message: MailboxMessage
        switch item {
        case .message(let m):
            message = m
        case .file(let position):
            guard let maildir else { preconditionFailure("a Maildir item without its reader") }
            do {
                message = try maildir.readMessage(at: position)
            } catch let error as MailboxError {
                // A Maildir message is a file of its own: one that cannot be read is skipped.
                let code: Problem.Code = error.code == .cannotOpen ? .inputUnavailable : .inputReadFailed
                outcome.events.append(.problem(InputProblem(input: error.path, message: "cannot be read: \(Self.plain(error.detail))", code: code)))
                return outcome
            } catch {
                outcome.events.append(.problem(InputProblem(input: maildir.path(at: position), message: "cannot be read: \(error)", code: .inputReadFailed)))
                return outcome
            }
        }
        outcome.read = true
        outcome.bytes = message.byteCount
        if message.oversize {
            let limit = scanner.limits.mime.maxMessageBytes
            outcome.events.append(.problem(InputProblem(input: input, message: "message \(message.index) is larger than \(Self.size(limit)) and was skipped", code: .inputUnusable)))
        } else {
            let source = PassSourceInfo(input: input, message: message.index, messagePath: message.path)
            let found = scanner.scanMessage(message.bytes, source: source) { sentence in
                outcome.events.append(.problem(InputProblem(input: input, message: "message \(message.index) \(sentence)", code: .inputUnusable)))
            }
            for pass in found { outcome.events.append(.found(pass)) }
        }
        return outcome
    }
}
