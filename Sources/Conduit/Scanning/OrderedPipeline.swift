#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `process` over items taken from `next` on `workers` threads (the calling thread and
/// `workers - 1` more) and hands every result to `report` in input order, as soon as it and all
/// before it are done (issue 17).
///
/// There is no barrier: the items in flight form a window (at most `window` items taken and not
/// yet reported, at most `windowBytes` bytes of items not yet processed, plus the one item that
/// crossed the limit), and a thread takes the next item the moment it is free, so one slow
/// message holds up nothing but the reporting behind it (until the window is full). Scanning in
/// batches that each ended in a wait for their slowest message left the other core idle: two
/// workers were no faster than one on a Maildir of 20 000 messages.
///
/// `next` and `report` run on the calling thread only. It reports what is ready, keeps the window
/// full, and scans an item itself when there is nothing else to do; it sleeps only when it can
/// do none of that. (A calling thread that only fed the workers had to be woken for it, and on a
/// busy machine the workers ran dry while it waited for a core.)
enum OrderedPipeline {
    static func run<Item: Sendable, Result: Sendable>(
        workers: Int, window: Int, windowBytes: Int,
        next: () -> (item: Item, bytes: Int)?,
        process: @escaping @Sendable (Item) -> Result,
        report: (Result) -> Void
    ) {
        let window = max(1, window)
        let state = PipelineState<Item, Result>(window: window)
        // Threads of our own, not Dispatch's pool: they start once per run and keep the calling
        // thread's scheduling (`nice passconduit scan` niced Dispatch's default-QoS thread back
        // to 0). One that cannot be started is done without: this thread scans too.
        var threads: [pthread_t] = []
        for _ in 1..<max(1, workers) {
            if let thread = startThread({ state.work(process) }) { threads.append(thread) }
        }
        state.lock()
        while true {
            if state.readyEnd > state.head {
                let ready = state.takeReady()
                state.unlock()
                for result in ready { report(result) }
                state.lock()
                continue
            }
            let room = window - (state.tail - state.head)
            if !state.finished && room > 0 && state.heldBytes < windowBytes {
                // Take items outside the lock (only this thread adds them), a few at a time so
                // workers waiting for their first items start early.
                let bytesRoom = windowBytes - state.heldBytes
                state.unlock()
                var taken: [(item: Item, bytes: Int)] = []
                var bytes = 0
                var ended = false
                while taken.count < min(room, 16) && bytes < bytesRoom {
                    guard let item = next() else { ended = true; break }
                    bytes += item.bytes
                    taken.append(item)
                }
                state.lock()
                state.add(taken, ended: ended)
                continue
            }
            if state.processOne(process) { continue }
            if state.finished && state.head == state.tail { break }
            state.waitForWorkers()
        }
        state.unlock()
        for thread in threads { pthread_join(thread, nil) }
    }

    /// Starts a thread running `body` with default attributes (the stack size of the main
    /// thread's limit, the creating thread's priority); nil when it cannot be started.
    static func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            // context is the retained ThreadBody passed below; it is released here, once.
            Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            return nil
        }
        return thread
    }
}

private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// The window's state, guarded by one mutex: items and results in rings of `window` slots
/// indexed by sequence number. Sequence numbers: `head` is the next to report, `readyEnd` the
/// first not done at or after it, `claimed` the next a worker takes, `tail` the next added.
private final class PipelineState<Item: Sendable, Result: Sendable>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let mainCondition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let workerCondition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let window: Int
    private var items: [Item?]
    private var results: [Result?]
    private var sizes: [Int]
    var head = 0, readyEnd = 0, claimed = 0, tail = 0
    /// Bytes of items added and not yet processed.
    var heldBytes = 0
    /// `next` returned nil: no item will be added.
    var finished = false
    private var mainWaiting = false
    private var idleWorkers = 0

    init(window: Int) {
        self.window = window
        items = Array(repeating: nil, count: window)
        results = Array(repeating: nil, count: window)
        sizes = Array(repeating: 0, count: window)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(mainCondition, nil)
        pthread_cond_init(workerCondition, nil)
    }

    deinit {
        pthread_cond_destroy(workerCondition)
        pthread_cond_destroy(mainCondition)
        pthread_mutex_destroy(mutex)
        workerCondition.deallocate()
        mainCondition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    /// The results `head..<readyEnd`, in order; they leave the window. Called locked.
    func takeReady() -> [Result] {
        var ready: [Result] = []
        ready.reserveCapacity(readyEnd - head)
        while head < readyEnd {
            // Every slot in head..<readyEnd holds a result (readyEnd only passes filled slots).
            ready.append(results[head % window].take()!)
            head += 1
        }
        return ready
    }

    /// Appends items taken by the calling thread; `ended`: `next` said there are no more. Called locked.
    func add(_ taken: [(item: Item, bytes: Int)], ended: Bool) {
        for entry in taken {
            let slot = tail % window
            items[slot] = entry.item
            sizes[slot] = entry.bytes
            heldBytes += entry.bytes
            tail += 1
        }
        if ended { finished = true }
        if idleWorkers > 0 {
            if ended || taken.count > 1 { pthread_cond_broadcast(workerCondition) } else if !taken.isEmpty { pthread_cond_signal(workerCondition) }
        }
    }

    /// Sleeps until a worker has finished an item. Called locked.
    func waitForWorkers() {
        mainWaiting = true
        while mainWaiting { pthread_cond_wait(mainCondition, mutex) }
    }

    /// Takes the next item, if any, processes it unlocked and files its result. Called locked.
    func processOne(_ process: (Item) -> Result) -> Bool {
        guard claimed < tail else { return false }
        let sequence = claimed
        claimed += 1
        // Slots claimed..<tail hold items (add fills them, only this line empties them).
        let item = items[sequence % window].take()!
        unlock()
        let result = process(item)
        lock()
        let slot = sequence % window
        results[slot] = result
        heldBytes -= sizes[slot]
        while readyEnd < claimed, results[readyEnd % window] != nil { readyEnd += 1 }
        if mainWaiting {
            mainWaiting = false
            pthread_cond_signal(mainCondition)
        }
        return true
    }

    /// A worker: takes items in order until there are none and no more will come.
    func work(_ process: (Item) -> Result) {
        lock()
        while true {
            if processOne(process) { continue }
            if finished { break }
            idleWorkers += 1
            pthread_cond_wait(workerCondition, mutex)
            idleWorkers -= 1
        }
        unlock()
    }
}
