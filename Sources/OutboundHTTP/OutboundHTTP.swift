internal import CCurl
internal import CCurlShims
import Foundation

/// linkd's one HTTP client: libcurl, one easy handle per request on a thread of its own, so no event loop or
/// cooperative-pool thread ever waits on the network. The only code in linkd that touches curl.
/// TLS is verified, redirects are not followed, every request has a connect and a total time limit, and the
/// response body (and its headers, at most `maxHeaderBytes`) is cut off past its cap — but for a download
/// (`OutboundRequest.bodyStream`), whose 2xx body is handed over as it comes, held to a stall limit instead.
public enum OutboundHTTP {
    /// Most bytes of response header lines kept; more aborts the transfer as `tooLarge`.
    public static let maxHeaderBytes = 64 * 1024
    /// The methods linkd sends.
    public static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]

    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Performs `request` on its own thread and resumes the caller when it ends.
    public static func perform(_ request: OutboundRequest) async -> Result<OutboundResponse, OutboundFailure> {
        if let refusal = refusal(of: request) { return .failure(refusal) }
        return await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: transfer(request)) }
            thread.name = "linkd-curl"
            thread.start()
        }
    }

    /// Why `request` is not sent, or nil: an unknown method, a URL or header with control characters.
    static func refusal(of request: OutboundRequest) -> OutboundFailure? {
        guard methods.contains(request.method) else {
            return OutboundFailure(.invalidRequest, "method \(request.method) is not one of \(methods.sorted().joined(separator: ", "))")
        }
        func clean(_ text: String) -> Bool { !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } }
        guard !request.url.isEmpty, clean(request.url), !request.url.contains(" ") else {
            return OutboundFailure(.invalidRequest, "the URL is empty or holds spaces or control characters")
        }
        for header in request.headers where !clean(header.name) || !clean(header.value) || header.name.contains(":") || header.name.isEmpty {
            return OutboundFailure(.invalidRequest, "header \(header.name.debugDescription) holds a line break or a colon")
        }
        return nil
    }

    /// What the callbacks collect, with the caps.
    private final class Sink {
        var body: [UInt8] = []
        var headerLines: [String] = []
        var headerBytes = 0
        let limit: Int
        var overflowed = false
        /// A 2xx body's way out, when the request streams it.
        let stream: OutboundBodyStream?
        /// The stream refused a piece.
        var streamFailed = false
        /// A streamed request body's way in.
        let source: OutboundBodySource?
        /// The source failed to give its next piece.
        var sourceFailed = false
        init(limit: Int, stream: OutboundBodyStream?, source: OutboundBodySource?) {
            self.limit = limit
            self.stream = stream
            self.source = source
        }

        /// Whether the response whose head was read is a 2xx (its status line is `HTTP/x 2xx …`).
        var isSuccess: Bool {
            guard let status = headerLines.first?.split(separator: " ").dropFirst().first else { return false }
            return status.count == 3 && status.hasPrefix("2")
        }
    }

    private static let writeBody: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        data, size, count, context in
        guard let data, let context else { return 0 }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        if let stream = sink.stream, sink.isSuccess {
            guard stream.write(UnsafeRawBufferPointer(start: data, count: length)) else {
                sink.streamFailed = true
                return 0  // curl aborts with CURLE_WRITE_ERROR
            }
            return length
        }
        guard sink.body.count + length <= sink.limit else {
            sink.overflowed = true
            return 0  // curl aborts with CURLE_WRITE_ERROR
        }
        data.withMemoryRebound(to: UInt8.self, capacity: length) { sink.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) }
        return length
    }

    private static let readBody: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        buffer, size, count, context in
        guard let buffer, let context else { return 0 }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        guard let source = sink.source, let read = source.read(UnsafeMutableRawBufferPointer(start: buffer, count: size * count)) else {
            sink.sourceFailed = true
            return Int(CURL_READFUNC_ABORT)
        }
        return read
    }

    private static let writeHeader: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        data, size, count, context in
        guard let data, let context else { return 0 }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        sink.headerBytes += length
        guard sink.headerBytes <= maxHeaderBytes else {
            sink.overflowed = true
            return 0
        }
        let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
        if line.hasPrefix("HTTP/") { sink.headerLines.removeAll() }  // a new response (after a 100 Continue)
        sink.headerLines.append(line)
        return length
    }

    /// The request's address check, and the addresses it refused, for the open-socket callback.
    private final class AddressGuard {
        let allows: @Sendable ([UInt8]) -> Bool
        var refused: [String] = []
        init(_ allows: @escaping @Sendable ([UInt8]) -> Bool) { self.allows = allows }
    }

    /// Makes the socket of each connection curl opens, after asking the request's `allowsAddress` about the address.
    private static let openSocket: @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>?)
        -> curl_socket_t = { context, purpose, address in
        guard let context, let address else { return CURL_SOCKET_BAD }
        let check = Unmanaged<AddressGuard>.fromOpaque(context).takeUnretainedValue()
        let family = address.pointee.family
        let socketAddress = UnsafeMutableRawPointer(address) + MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr)!
        var bytes: [UInt8]
        switch family {
        case AF_INET:
            let v4 = socketAddress.loadUnaligned(as: sockaddr_in.self)
            bytes = withUnsafeBytes(of: v4.sin_addr) { Array($0) }
        case AF_INET6 where Int(address.pointee.addrlen) >= MemoryLayout<sockaddr_in6>.size:
            let v6 = socketAddress.loadUnaligned(as: sockaddr_in6.self)
            bytes = withUnsafeBytes(of: v6.sin6_addr) { Array($0) }
        default:
            bytes = []  // not an IP address (a Unix socket): refused
        }
        guard !bytes.isEmpty, check.allows(bytes) else {
            check.refused.append(addressText(bytes, family: family))
            return CURL_SOCKET_BAD
        }
        return socket(family, address.pointee.socktype, address.pointee.protocol)
    }

    /// An address as text (`192.0.2.1`, `::1`) for messages.
    private static func addressText(_ bytes: [UInt8], family: Int32) -> String {
        guard !bytes.isEmpty else { return "an address of family \(family)" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func transfer(_ request: OutboundRequest) -> Result<OutboundResponse, OutboundFailure> {
        _ = globalInit
        guard let handle = curl_easy_init() else { return .failure(OutboundFailure(.transport, "curl_easy_init failed")) }
        defer { curl_easy_cleanup(handle) }
        let sink = Sink(limit: request.limits.maxResponseBytes, stream: request.bodyStream, source: request.bodySource)
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }

        var headerList: UnsafeMutablePointer<curl_slist>?
        // An upload asks first (`Expect: 100-continue`, sent after curl's wait of a second without an answer), so a
        // server that refuses it — too large, unauthorised — answers before the body goes; anything else sends at once.
        for line in request.headers.map({ "\($0.name): \($0.value)" }) + [request.bodySource == nil ? "Expect:" : "Expect: 100-continue"] {
            headerList = curl_slist_append(headerList, line)
        }
        defer { curl_slist_free_all(headerList) }
        var resolveList: UnsafeMutablePointer<curl_slist>?
        for entry in request.pinnedAddresses { resolveList = curl_slist_append(resolveList, entry) }
        defer { curl_slist_free_all(resolveList) }

        let addressGuard = request.allowsAddress.map { Unmanaged.passRetained(AddressGuard($0)) }
        defer { addressGuard?.release() }

        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let limits = request.limits
        let code: CURLcode = request.url.withCString { url in
            request.allowedSchemes.withCString { schemes in
                request.method.withCString { method in
                    errorBuffer.withUnsafeMutableBufferPointer { errors in
                        _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_URL, UnsafeMutableRawPointer(mutating: url))
                        _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_PROTOCOLS_STR, UnsafeMutableRawPointer(mutating: schemes))
                        _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_REDIR_PROTOCOLS_STR, UnsafeMutableRawPointer(mutating: schemes))
                        _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_ERRORBUFFER, errors.baseAddress)
                        _ = CCurlShims_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
                        _ = CCurlShims_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
                        _ = CCurlShims_easy_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
                        _ = CCurlShims_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
                        setLimits(handle, request)
                        _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_HTTPHEADER, headerList.map { UnsafeMutableRawPointer($0) })
                        if let addressGuard {
                            _ = CCurlShims_easy_setopt_opensocket_callback(handle, openSocket)
                            _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_OPENSOCKETDATA, addressGuard.toOpaque())
                        }
                        if !request.usesEnvironmentProxy {
                            // An empty proxy turns off the one the environment names (curl copies the string).
                            _ = "".withCString { CCurlShims_easy_setopt_ptr(handle, CURLOPT_PROXY, UnsafeMutableRawPointer(mutating: $0)) }
                        }
                        if let caFile = request.caCertificatesFile {
                            // Only this file's authorities (no CA directory besides); curl copies the path, and a file
                            // that cannot be read fails the handshake (`tls`).
                            _ = caFile.withCString { CCurlShims_easy_setopt_ptr(handle, CURLOPT_CAINFO, UnsafeMutableRawPointer(mutating: $0)) }
                            _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_CAPATH, nil)
                        }
                        if resolveList != nil {
                            _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_RESOLVE, resolveList.map { UnsafeMutableRawPointer($0) })
                        }
                        _ = CCurlShims_easy_setopt_write_callback(handle, writeBody)
                        _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_WRITEDATA, context.toOpaque())
                        _ = CCurlShims_easy_setopt_header_callback(handle, writeHeader)
                        _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_HEADERDATA, context.toOpaque())
                        setMethod(handle, request, context: context.toOpaque(), method: method, url: url)
                        return curl_easy_perform(handle)
                    }
                }
            }
        }
        if sink.streamFailed {
            return .failure(OutboundFailure(.transport, "the body could not be written"))
        }
        if sink.sourceFailed {
            return .failure(OutboundFailure(.transport, "the body could not be read"))
        }
        if sink.overflowed || code == CURLE_FILESIZE_EXCEEDED {
            return .failure(OutboundFailure(.tooLarge, "the response is larger than \(limits.maxResponseBytes) bytes"))
        }
        if code != CURLE_OK, let refused = addressGuard?.takeUnretainedValue().refused, !refused.isEmpty {
            return .failure(OutboundFailure(.addressRefused, "connecting to \(refused.joined(separator: ", ")) is not allowed"))
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(OutboundFailure(kind(of: code), detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail))
        }
        var status = 0
        _ = CCurlShims_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var location: UnsafeMutablePointer<CChar>?
        _ = CCurlShims_easy_getinfo_string(handle, CURLINFO_REDIRECT_URL, &location)
        var address: UnsafeMutablePointer<CChar>?
        _ = CCurlShims_easy_getinfo_string(handle, CURLINFO_PRIMARY_IP, &address)
        return .success(
            OutboundResponse(
                status: status, headers: headers(sink.headerLines), body: sink.body,
                redirectURL: location.map { String(cString: $0) }, remoteAddress: address.map { String(cString: $0) }))
    }

    /// The request's time limits and response cap: a stall limit for a download or an upload, else a total one.
    private static func setLimits(_ handle: UnsafeMutableRawPointer, _ request: OutboundRequest) {
        let limits = request.limits
        _ = CCurlShims_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, limits.connectTimeoutMilliseconds)
        if let stall = request.bodyStream?.stallTimeoutMilliseconds ?? request.bodySource?.stallTimeoutMilliseconds {
            // No total limit (and, downloading, no size cap: the error answers' cap is the sink's):
            // a stall fails it.
            _ = CCurlShims_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
            _ = CCurlShims_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, (stall + 999) / 1000))
        }
        if request.bodyStream == nil {
            // A download's 2xx body is the stream's, uncapped; every other answer is capped.
            _ = CCurlShims_easy_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limits.maxResponseBytes))
        }
        if request.bodyStream == nil, request.bodySource == nil {
            _ = CCurlShims_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, limits.totalTimeoutMilliseconds)
        }
    }

    /// The request's method and body: a streamed one (`bodySource`), the bytes of `body`, or none.
    private static func setMethod(
        _ handle: UnsafeMutableRawPointer, _ request: OutboundRequest, context: UnsafeMutableRawPointer,
        method: UnsafePointer<CChar>, url: UnsafePointer<CChar>
    ) {
        switch request.method {
        case "GET":
            _ = CCurlShims_easy_setopt_long(handle, CURLOPT_HTTPGET, 1)
        case "HEAD":
            _ = CCurlShims_easy_setopt_long(handle, CURLOPT_NOBODY, 1)
        default:
            if let source = request.bodySource {
                // Read as curl sends it (`readBody`); chunked when the length is unknown.
                _ = CCurlShims_easy_setopt_long(handle, CURLOPT_POST, 1)
                _ = CCurlShims_easy_setopt_read_callback(handle, readBody)
                _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_READDATA, context)
                _ = CCurlShims_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(source.length ?? -1))
            } else if !request.body.isEmpty || request.method != "DELETE" {
                // COPYPOSTFIELDS copies the bytes: nothing here has to outlive this call.
                _ = CCurlShims_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
                _ = request.body.withUnsafeBytes {
                    CCurlShims_easy_setopt_ptr(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress ?? UnsafeRawPointer(url)))
                }
            }
            if request.method != "POST" {
                _ = CCurlShims_easy_setopt_ptr(handle, CURLOPT_CUSTOMREQUEST, UnsafeMutableRawPointer(mutating: method))
            }
        }
    }

    /// The header fields of the response's header lines (the status line and the blank line dropped).
    static func headers(_ lines: [String]) -> [OutboundHeader] {
        lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":"), !line.hasPrefix("HTTP/") else { return nil }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            return name.isEmpty ? nil : OutboundHeader(name, value)
        }
    }

    /// The failure kind of a curl result code.
    static func kind(of code: CURLcode) -> OutboundFailure.Kind {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: .timedOut
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: .couldNotResolve
        case CURLE_COULDNT_CONNECT, CURLE_UNSUPPORTED_PROTOCOL: .couldNotConnect
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            .tls
        case CURLE_URL_MALFORMAT: .invalidRequest
        default: .transport
        }
    }
}
