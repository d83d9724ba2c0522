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
        let data = try await send(request, safety: safety)
        do {
            return try Self.decoder.decode(T.self, from: data)
        } catch {
            throw .unexpectedResponse(status: 200, reason: "the answer is not a \(T.self): \(error)")
        }
    }

    /// Sends `request`, retrying as the policy and `safety` allow; the body of a 2xx answer.
    func send(_ request: URLRequest, safety: RetryPolicy.Safety) async throws(LinkdClientError) -> Data {
        var attempt = 1
        var waited = Duration.zero
        while true {
            let failure: LinkdClientError
            do {
                return try await attemptOnce(request)
            } catch {
                failure = error
            }
            guard let delay = configuration.retry.delay(after: failure, attempt: attempt, waited: waited, safety: safety) else {
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

    /// One attempt within `configuration.timeout`: the body of a 2xx answer, else the error it means.
    private func attemptOnce(_ request: URLRequest) async throws(LinkdClientError) -> Data {
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
        if (200..<300).contains(http.statusCode) { return data }
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

    /// `body`'s value if it ends within `limit`; else `LinkdClientError.timedOut`, and `body` is cancelled (a
    /// `URLSession` data task is cancelled with it). The caller's cancellation reaches `body` too.
    static func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw LinkdClientError.timedOut(limit)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw LinkdClientError.timedOut(limit) }
            return first
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
