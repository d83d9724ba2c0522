import AsyncTimeouts
import Synchronization
import Testing

private struct TimedOut: Error {}
private struct Refused: Error {}

@Suite("Deadlines")
struct DeadlineTests {
    @Test("Deadline.run returns the body's value, or its error, when it ends in time")
    func inTime() async throws {
        let timeouts = Mutex(0)
        let value = try await Deadline.run(within: .seconds(5), onTimeout: { timeouts.withLock { $0 += 1 }; return TimedOut() }) { 42 }
        #expect(value == 42)
        await #expect(throws: Refused.self) {
            try await Deadline.run(within: .seconds(5), onTimeout: { TimedOut() }) { () async throws -> Int in throw Refused() }
        }
        #expect(timeouts.withLock { $0 } == 0, "onTimeout is called only when the deadline passes first")
    }

    @Test("Deadline.run throws onTimeout's error at the deadline and cancels the body")
    func late() async throws {
        let cancelled = Mutex(false)
        let started = ContinuousClock.now
        await #expect(throws: TimedOut.self) {
            try await Deadline.run(within: .milliseconds(50), onTimeout: { TimedOut() }) {
                do { try await Task.sleep(for: .seconds(120)) } catch { cancelled.withLock { $0 = true } }
                return 1
            }
        }
        // Ended by the deadline, not by the body (generous: other suites may hold the cooperative pool for seconds).
        #expect(ContinuousClock.now - started < .seconds(60))
        var waited = 0
        while !cancelled.withLock({ $0 }) && waited < 3000 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(cancelled.withLock { $0 }, "the body's task is cancelled")
    }

    @Test("value(of:within:) is the task's value in time, else nil while the task goes on")
    func valueWithin() async throws {
        #expect(await Deadline.value(of: Task { 7 }, within: .seconds(5)) == 7)
        let slow = Task { () -> Int in
            try? await Task.sleep(for: .milliseconds(300))
            return Task.isCancelled ? -1 : 8
        }
        #expect(await Deadline.value(of: slow, within: .milliseconds(20)) == nil)
        #expect(await slow.value == 8, "not cancelled")
    }
}
