public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Headless chromium driven through the DevTools protocol over `--remote-debugging-pipe`: JSON messages, each ended
/// by a NUL byte, written to the browser's fd 3 and read from its fd 4 (no websocket). Enough to drive forms: load a
/// page, fill fields, click, wait for the next page, read the DOM, take a screenshot at a given size.
///
/// Calls block (the browser is another process; the daemon under test is too) and each waits at most `timeout`.
public final class ChromiumDriver: @unchecked Sendable {
    /// A protocol error, a browser that went away, or a wait that ran out.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    private let pid: pid_t
    private let commands: Int32  // our end of the browser's fd 3
    private let replies: Int32   // our end of the browser's fd 4
    private let profile: URL
    private var pending: [UInt8] = []
    private var events: [[String: Any]] = []
    private var nextID = 1
    private var session = ""
    private var closed = false
    /// The longest any one call waits, in seconds.
    public var timeout: Double = 20

    /// Starts chromium with a fresh profile and opens one page of `width`×`height` CSS pixels (`mobile`: a phone's
    /// viewport and touch), sending `userAgent` when given.
    public init(width: Int, height: Int, mobile: Bool = false, userAgent: String? = nil) throws {
        let chromium = try ExternalTool.path("chromium", install: "apt-get install chromium")
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("linkd-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        var toBrowser: [Int32] = [0, 0], fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else { throw Failure(description: "pipe failed") }
        for fd in toBrowser + fromBrowser { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the targets only: the browser keeps fd 3 and 4 and nothing else of ours.
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                         "--remote-debugging-pipe", "--user-data-dir=\(profile.path)", "about:blank"]
            + (userAgent.map { ["--user-agent=\($0)"] } ?? [])
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, chromium, &actions, nil, &argv, environ)
        Glibc.close(toBrowser[0])
        Glibc.close(fromBrowser[1])
        guard spawned == 0 else {
            Glibc.close(toBrowser[1])
            Glibc.close(fromBrowser[0])
            throw Failure(description: "cannot start chromium: posix_spawn \(spawned)")
        }
        pid = child
        commands = toBrowser[1]
        replies = fromBrowser[0]
        let target = try call("Target.createTarget", ["url": "about:blank"], inSession: false)
        guard let targetID = target["targetId"] as? String else { throw Failure(description: "no target: \(target)") }
        let attached = try call("Target.attachToTarget", ["targetId": targetID, "flatten": true], inSession: false)
        guard let id = attached["sessionId"] as? String else { throw Failure(description: "no session: \(attached)") }
        session = id
        _ = try call("Page.enable")
        try resize(width: width, height: height, mobile: mobile)
    }

    deinit { close() }

    /// Sets the viewport to `width`×`height` CSS pixels (device scale 1).
    public func resize(width: Int, height: Int, mobile: Bool) throws {
        _ = try call("Emulation.setDeviceMetricsOverride", [
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile,
        ])
        if mobile { _ = try call("Emulation.setTouchEmulationEnabled", ["enabled": true, "maxTouchPoints": 1]) }
    }

    /// Loads `url` and waits until its `load` event.
    public func open(_ url: String) throws {
        events.removeAll()
        let answer = try call("Page.navigate", ["url": url])
        if let error = answer["errorText"] as? String { throw Failure(description: "cannot load \(url): \(error)") }
        try waitForLoad()
    }

    /// The value of a JavaScript expression evaluated in the page (JSON values come back as Swift values).
    @discardableResult
    public func evaluate(_ expression: String) throws -> Any? {
        let answer = try call("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = answer["exceptionDetails"] { throw Failure(description: "\(expression): \(exception)") }
        return (answer["result"] as? [String: Any])?["value"]
    }

    /// Sets the field `selector` names to `value`, as typing would.
    public func fill(_ selector: String, _ value: String) throws {
        let found = try evaluate("""
            (() => { const e = document.querySelector(\(Self.literal(selector))); if (!e) return false;
              e.focus(); e.value = \(Self.literal(value)); e.dispatchEvent(new Event('input', {bubbles: true})); return true })()
            """) as? Bool
        guard found == true else { throw Failure(description: "no field \(selector) on \(try url())") }
    }

    /// Clicks the element `selector` names (a link or a submit button) and waits for the page it leads to.
    public func clickAndWait(_ selector: String) throws {
        events.removeAll()
        let found = try evaluate("""
            (() => { const e = document.querySelector(\(Self.literal(selector))); if (!e) return false; e.click(); return true })()
            """) as? Bool
        guard found == true else { throw Failure(description: "nothing to click at \(selector) on \(try url())") }
        try waitForLoad()
    }

    /// Presses Tab `count` times (real key events) and returns a description of the focused element.
    public func tab(_ count: Int = 1) throws -> String {
        for _ in 0..<count {
            for type in ["keyDown", "keyUp"] {
                _ = try call("Input.dispatchKeyEvent", ["type": type, "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9])
            }
        }
        return try evaluate("""
            (() => { const e = document.activeElement; return e ? (e.tagName + ' ' + (e.textContent || e.value || e.name || '').trim()) : '' })()
            """) as? String ?? ""
    }

    /// The page's address.
    public func url() throws -> String { try evaluate("location.href") as? String ?? "" }

    /// The rendered DOM.
    public func html() throws -> String { try evaluate("document.documentElement.outerHTML") as? String ?? "" }

    /// The visible text of the page.
    public func text() throws -> String { try evaluate("document.body.innerText") as? String ?? "" }

    /// Saves a PNG of the whole page (its full height, at the viewport's width) to `file`.
    public func screenshot(to file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let answer = try call("Page.captureScreenshot", ["format": "png", "captureBeyondViewport": true])
        guard let base64 = answer["data"] as? String, let data = Data(base64Encoded: base64) else {
            throw Failure(description: "no screenshot data")
        }
        try data.write(to: file)
    }

    /// Ends the browser (and removes its profile).
    public func close() {
        guard !closed else { return }
        closed = true
        _ = try? send("Browser.close", [:], inSession: false)
        var status: Int32 = 0
        for _ in 0..<100 {
            if waitpid(pid, &status, WNOHANG) == pid { break }
            usleep(50_000)
        }
        if waitpid(pid, &status, WNOHANG) == 0 {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        Glibc.close(commands)
        Glibc.close(replies)
        try? FileManager.default.removeItem(at: profile)
    }

    // MARK: Protocol

    private func waitForLoad() throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if events.contains(where: { $0["method"] as? String == "Page.loadEventFired" }) {
                events.removeAll()
                return
            }
            try readMessage(until: deadline)
        }
        throw Failure(description: "the page did not load within \(timeout) s")
    }

    /// Sends a command (to the page's session unless `inSession` is false) and waits for its answer's `result`.
    private func call(_ method: String, _ params: [String: Any] = [:], inSession: Bool = true) throws -> [String: Any] {
        let id = try send(method, params, inSession: inSession)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let index = events.firstIndex(where: { $0["id"] as? Int == id }) {
                let message = events.remove(at: index)
                if let error = message["error"] { throw Failure(description: "\(method): \(error)") }
                return message["result"] as? [String: Any] ?? [:]
            }
            try readMessage(until: deadline)
        }
        throw Failure(description: "\(method): no answer within \(timeout) s")
    }

    private func send(_ method: String, _ params: [String: Any], inSession: Bool) throws -> Int {
        let id = nextID
        nextID += 1
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if inSession { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            guard written > 0 else { throw Failure(description: "the browser's pipe is closed (\(method))") }
            offset += written
        }
        return id
    }

    /// Reads at least one whole message into `events` (answers and events alike), or throws past `deadline`.
    private func readMessage(until deadline: Date) throws {
        while true {
            if let end = pending.firstIndex(of: 0) {
                let bytes = Array(pending[..<end])
                pending.removeFirst(end + 1)
                if let message = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] { events.append(message) }
                return
            }
            let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard left > 0 else { throw Failure(description: "no message from the browser in time") }
            var poller = pollfd(fd: replies, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, left) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { read(replies, $0.baseAddress, $0.count) }
            guard count > 0 else { throw Failure(description: "the browser closed its pipe") }
            pending += chunk[..<count]
        }
    }

    /// `value` as a JavaScript string literal.
    static func literal(_ value: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [value])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }
}
