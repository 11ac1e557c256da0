// Runs one job per input on up to --jobs threads; a failing input never stops the others.
import ClipKit
import Foundation

struct Batch: Sendable {
    /// How many inputs run at once. Each input's own stages stay on their bounded queues, so
    /// memory is bounded by `jobs` times the per-file bound.
    var jobs: Int

    init(jobs: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.jobs = max(1, jobs)
    }

    /// Calls `work` for every input, `jobs` at a time, and hands each report to `report` in
    /// input order (as soon as it and every earlier one are done), so output is deterministic
    /// whatever `jobs` is. Errors thrown by `work` become `error` reports, naming the input
    /// first. When `report` returns false (stdout closed), no further input is started; the
    /// running ones finish.
    func run(_ inputs: [BatchInput], work: @escaping @Sendable (BatchInput) throws -> Report,
                    report: @escaping @Sendable (Report) -> Bool) -> [Report] {
        let state = BatchState(count: inputs.count)
        let workers = min(jobs, max(inputs.count, 1))
        let group = DispatchGroup()
        for _ in 0..<workers {
            let thread = Thread {
                while let index = state.claim() {
                    let input = inputs[index]
                    let started = Date()
                    var outcome: Report
                    do {
                        outcome = try work(input)
                    } catch {
                        // Whichever output met it (a GIF, PNG, poster, frames or sheets directory
                        // that cannot be written), the line starts with the input.
                        let message = (error as? ClipKitError)?.naming(input: input.url.path).description ?? String(describing: error)
                        outcome = Report(input: input.url.path, status: .error, error: message)
                    }
                    if outcome.seconds == 0 { outcome.seconds = Date().timeIntervalSince(started) }
                    state.complete(index, outcome, report: report)
                }
                group.leave()
            }
            thread.stackSize = 8 << 20
            group.enter()
            thread.start()
        }
        group.wait()
        return state.results.compactMap { $0 }
    }
}

/// The shared counters of a batch: which input is next, which reports are done, which printed.
private final class BatchState: Sendable {
    private struct Counters {
        var next = 0
        var printed = 0
        var stopped = false
        var results: [Report?]
    }

    private let counters: Locked<Counters>

    init(count: Int) { counters = Locked(Counters(results: Array(repeating: nil, count: count))) }

    var results: [Report?] { counters.withLock { $0.results } }

    func claim() -> Int? {
        counters.withLock { counters in
            guard !counters.stopped, counters.next < counters.results.count else { return nil }
            counters.next += 1
            return counters.next - 1
        }
    }

    func complete(_ index: Int, _ outcome: Report, report: (Report) -> Bool) {
        counters.withLock { counters in
            counters.results[index] = outcome
            while counters.printed < counters.results.count, let ready = counters.results[counters.printed] {
                if !report(ready) { counters.stopped = true }
                counters.printed += 1
            }
        }
    }
}
