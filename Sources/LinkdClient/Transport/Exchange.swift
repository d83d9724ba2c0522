import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request of the client, sent with its time limit and retried by its `RetryPolicy`; the answer read as
/// the API's JSON or as its error body.
struct Exchange: Sendable {
    let session: URLSession
    let configuration: LinkdClient.Configuration

    /// Sends `request` (retrying as the policy and `safety` allow) and decodes a 2xx answer as `T`.
    func send<T: Decodable>(_ request: URLRequest, safety: RetryPolicy.Safety, as type: T.Type) async throws(LinkdClientError) -> T {
        let (data, status) = try await send(request, safety: safety)
        do {
            return try Self.decoder.decode(T.self, from: data)
        } catch {
            throw .unexpectedResponse(status: status, reason: "the answer is not a \(T.self): \(error)")
        }
    }

    /// Sends `request`, retrying as the policy and `safety` allow; the body and status of a 2xx answer.
    func send(_ request: URLRequest, safety: RetryPolicy.Safety) async throws(LinkdClientError) -> (Data, Int) {
        var attempt = 1
        var waited = Duration.zero
        while true {
            let failure: LinkdClientError
            do {
                return try await attemptOnce(request)
            } catch {
                failure = error
            }
            guard !Task.isCancelled,
                  let delay = configuration.retry.delay(after: failure, attempt: attempt, waited: waited, safety: safety) else {
                throw failure
            }
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw failure  // cancelled while waiting: the last failure is the answer
            }
            waited += delay
            attempt += 1
        }
    }

    /// One attempt within `configuration.timeout`: the body and status of a 2xx answer, else the error it means.
    private func attemptOnce(_ request: URLRequest) async throws(LinkdClientError) -> (Data, Int) {
        let limit = configuration.timeout
        var request = request
        // URLSession's own idle limit only backs up `within` (which cancels the task at the limit): in whole seconds
        // and a second over, since swift-corelibs-foundation truncates it to whole seconds (0.5 s would fire at once).
        request.timeoutInterval = (Self.seconds(limit) + 1).rounded(.up)
        let outcome: Result<(Data, URLResponse), LinkdClientError>
        do {
            outcome = .success(try await Self.within(limit) { [session, request] in try await session.data(for: request) })
        } catch let error as LinkdClientError {
            outcome = .failure(error)
        } catch let error as URLError where error.code == .timedOut {
            outcome = .failure(.timedOut(limit))
        } catch let error as URLError {
            outcome = .failure(.transport(code: error.code.rawValue, message: error.localizedDescription))
        } catch is CancellationError {
            outcome = .failure(.transport(code: URLError.Code.cancelled.rawValue, message: "cancelled"))
        } catch {
            outcome = .failure(.transport(code: URLError.Code.unknown.rawValue, message: "\(error)"))
        }
        let (data, response) = try outcome.get()
        guard let http = response as? HTTPURLResponse else {
            throw .unexpectedResponse(status: 0, reason: "not an HTTP answer")
        }
        guard data.count <= configuration.maxResponseBytes else {
            throw .unexpectedResponse(status: http.statusCode, reason: "an answer of \(data.count) bytes, over the client's cap")
        }
        if (200..<300).contains(http.statusCode) { return (data, http.statusCode) }
        guard let body = try? Self.decoder.decode(ErrorBody.self, from: data) else {
            throw .unexpectedResponse(status: http.statusCode, reason: "not the API's error JSON: \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
        throw .server(ServerError(
            status: http.statusCode, code: ServerErrorCode(rawValue: body.error.code), message: body.error.message,
            retryAfter: (http.value(forHTTPHeaderField: "Retry-After")).flatMap(Self.retryAfter)))
    }

    /// `Retry-After` in its delay-seconds form (RFC 9110 §10.2.3); the HTTP-date form, which linkd never sends, is
    /// ignored (the policy's backoff applies).
    static func retryAfter(_ value: String) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 10, trimmed.allSatisfy(\.isASCII), let seconds = Int(trimmed), seconds >= 0 else {
            return nil
        }
        return .seconds(seconds)
    }

    /// `body`'s value if it ends within `limit`; else `LinkdClientError.timedOut` at the limit, and `body` is cancelled
    /// (a `URLSession` data task is cancelled with it) but not awaited, so a loser slow to end cannot hold the caller
    /// past the limit. The caller's cancellation ends the call at once, with `CancellationError`, and cancels `body`.
    static func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                race.arm(continuation, [
                    Task {
                        do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
                    },
                    Task {
                        guard (try? await Task.sleep(for: limit)) != nil else { return }
                        race.finish(.failure(LinkdClientError.timedOut(limit)))
                    },
                ])
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// A duration in seconds, as `TimeInterval`.
    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// The JSON decoder of every answer: RFC 3339 dates, unknown keys ignored.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// The JSON encoder of every request body.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// `{"error": {"code", "message"}}`.
    private struct ErrorBody: Decodable {
        struct Detail: Decodable {
            let code: String
            let message: String
        }
        let error: Detail
    }
}

/// One attempt racing its time limit (and the caller's cancellation) for one continuation: the first to `finish`
/// resumes it and cancels the racing tasks; the rest are ignored. A result that comes before the continuation is
/// armed is kept and given to it when it is.
final class Race<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var tasks: [Task<Void, Never>] = []
    private var result: Result<T, any Error>?

    /// Hands over the continuation and the racing tasks (started already: one may have finished).
    func arm(_ continuation: CheckedContinuation<T, any Error>, _ tasks: [Task<Void, Never>]) {
        let decided: Result<T, any Error>? = locked {
            if let result { return result }
            self.continuation = continuation
            self.tasks = tasks
            return nil
        }
        guard let decided else { return }
        for task in tasks { task.cancel() }
        continuation.resume(with: decided)
    }

    /// The first result wins; later ones are dropped.
    func finish(_ outcome: Result<T, any Error>) {
        let winner: (CheckedContinuation<T, any Error>?, [Task<Void, Never>])? = locked {
            guard result == nil else { return nil }
            result = outcome
            defer {
                continuation = nil
                tasks = []
            }
            return (continuation, tasks)
        }
        guard let (continuation, tasks) = winner else { return }
        for task in tasks { task.cancel() }
        continuation?.resume(with: outcome)
    }

    /// `body` under the lock (`NSLocking.withLock` needs iOS 17; the package supports iOS 16).
    private func locked<R>(_ body: () -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
