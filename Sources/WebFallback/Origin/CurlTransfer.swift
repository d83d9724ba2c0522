internal import CCurl
internal import CCurlShims
import Foundation

/// One GET with libcurl on a dedicated thread: the only code in linkd that touches curl.
/// No redirect is followed here (the caller checks each `Location` against the origin); only http/https; TLS
/// verified; the body is cut off (and the transfer aborted) past `maxBodyBytes`.
enum CurlTransfer {
    struct Response: Sendable {
        let status: Int
        let body: [UInt8]
        /// The `Location` of a 3xx, resolved against the request URL by curl.
        let redirectURL: String?
    }

    enum Failure: Error, Sendable {
        case timedOut
        case tooLarge
        case transport(String)
    }

    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Runs the transfer on its own thread and resumes the caller when it ends; the caller's event loop never blocks.
    static func get(
        url: String, connectTimeoutMilliseconds: Int, totalTimeoutMilliseconds: Int, maxBodyBytes: Int
    ) async -> Result<Response, Failure> {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(
                    returning: perform(
                        url: url, connectTimeout: connectTimeoutMilliseconds, totalTimeout: totalTimeoutMilliseconds,
                        maxBodyBytes: maxBodyBytes))
            }
            thread.name = "linkd-origin-curl"
            thread.start()
        }
    }

    /// The body collected by the write callback, with its cap.
    private final class Sink {
        var bytes: [UInt8] = []
        let limit: Int
        var overflowed = false
        init(limit: Int) { self.limit = limit }
    }

    private static let write: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        data, size, count, context in
        guard let data, let context else { return 0 }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard sink.bytes.count + length <= sink.limit else {
            sink.overflowed = true
            return 0  // makes curl abort with CURLE_WRITE_ERROR
        }
        data.withMemoryRebound(to: UInt8.self, capacity: length) { sink.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) }
        return length
    }

    private static func perform(url: String, connectTimeout: Int, totalTimeout: Int, maxBodyBytes: Int)
        -> Result<Response, Failure>
    {
        _ = globalInit
        guard let handle = curl_easy_init() else { return .failure(.transport("curl_easy_init failed")) }
        defer { curl_easy_cleanup(handle) }
        let sink = Sink(limit: maxBodyBytes)
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = url.withCString { urlPointer in
            "http,https".withCString { protocols in
                errorBuffer.withUnsafeMutableBufferPointer { errorPointer in
                    _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_URL, UnsafeMutableRawPointer(mutating: urlPointer))
                    _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_PROTOCOLS_STR, UnsafeMutableRawPointer(mutating: protocols))
                    _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_REDIR_PROTOCOLS_STR, UnsafeMutableRawPointer(mutating: protocols))
                    _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_ERRORBUFFER, errorPointer.baseAddress)
                    _ = CCurlShims_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
                    _ = CCurlShims_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
                    _ = CCurlShims_easy_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
                    _ = CCurlShims_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
                    _ = CCurlShims_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, connectTimeout)
                    _ = CCurlShims_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, totalTimeout)
                    _ = CCurlShims_easy_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxBodyBytes))
                    _ = CCurlShims_easy_setopt_write_callback(handle, write)
                    _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_WRITEDATA, context.toOpaque())
                    return curl_easy_perform(handle)
                }
            }
        }
        if sink.overflowed || code == CURLE_FILESIZE_EXCEEDED { return .failure(.tooLarge) }
        if code == CURLE_OPERATION_TIMEDOUT { return .failure(.timedOut) }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(.transport(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail))
        }
        var status = 0
        _ = CCurlShims_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var location: UnsafeMutablePointer<CChar>?
        _ = CCurlShims_easy_getinfo_string(handle, CURLINFO_REDIRECT_URL, &location)
        return .success(Response(status: status, body: sink.bytes, redirectURL: location.map { String(cString: $0) }))
    }
}
