import Synchronization

/// Time limits for async work, in the two forms linkd needs: a call that must answer by a deadline (the store's
/// database calls), and a value that is wanted only if it comes in time (a page waiting for an origin's preview).
/// In both, the work is not awaited past the limit. Each costs one small object and two tasks; whichever of the
/// two finishes second is cancelled (so no timer sleeps on after the work).
public enum Deadline {
    /// Runs `body` with a deadline: the caller gets the body's value or error if it ends within `limit`, else the
    /// error `onTimeout` makes — at once, while the body's task is cancelled and left to end in the background.
    ///
    /// `onTimeout` is called only when the deadline passes first, once (it may note that, e.g. start failing fast).
    /// The caller's cancellation is not passed on: the call ends by the body or by the deadline.
    public static func run<T: Sendable>(
        within limit: Duration, onTimeout: @escaping @Sendable () -> any Error,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let race = DeadlineRace(continuation)
            race.arm(
                work: Task {
                    let result: Result<T, any Error>
                    do { result = .success(try await body()) } catch { result = .failure(error) }
                    race.take()?.resume(with: result)
                },
                timer: Task {
                    try? await Task.sleep(for: limit)
                    guard let continuation = race.take() else { return }
                    continuation.resume(throwing: onTimeout())
                })
        }
    }

    /// The task's value if it finishes within `limit`, else nil; either way the task goes on (it is not cancelled:
    /// a preview fetch fills the cache for the next visitor).
    public static func value<T: Sendable>(of task: Task<T, Never>, within limit: Duration) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let race = DeadlineRace(continuation)
            race.arm(
                work: Task {
                    // Awaiting a task's value does not cancel it when this waiter is cancelled.
                    let value = await task.value
                    race.take()?.resume(returning: value)
                },
                timer: Task {
                    try? await Task.sleep(for: limit)
                    race.take()?.resume(returning: nil)
                })
        }
    }
}

/// The race between a piece of work and a timer for one continuation: the first to `take` it resumes it, and both
/// tasks are then cancelled (the loser's cancellation is what matters; the winner is done).
final class DeadlineRace<T: Sendable, Failure: Error>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, Failure>?
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
    }

    private let state: Mutex<State>

    init(_ continuation: CheckedContinuation<T, Failure>) {
        state = Mutex(State(continuation: continuation))
    }

    /// Hands over the two racing tasks (started before this call, so one may have won already: then both are
    /// cancelled at once).
    func arm(work: Task<Void, Never>, timer: Task<Void, Never>) {
        let decided = state.withLock { state -> Bool in
            guard state.continuation != nil else { return true }
            state.work = work
            state.timer = timer
            return false
        }
        if decided {
            work.cancel()
            timer.cancel()
        }
    }

    /// The continuation, to the first caller only (nil to every later one); cancels the racing tasks.
    func take() -> CheckedContinuation<T, Failure>? {
        let taken = state.withLock { state -> (CheckedContinuation<T, Failure>, Task<Void, Never>?, Task<Void, Never>?)? in
            guard let continuation = state.continuation else { return nil }
            defer { state = State() }
            return (continuation, state.work, state.timer)
        }
        guard case let (continuation, work, timer)? = taken else { return nil }
        work?.cancel()
        timer?.cancel()
        return continuation
    }
}
