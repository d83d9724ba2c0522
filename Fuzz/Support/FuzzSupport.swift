/// What every fuzz target shares: the one way an invariant fails, and where the repository's files are.
public enum Fuzz {
    /// Stops the process (a trap, with `message`) when `condition` is false: libFuzzer's deadly-signal handler then
    /// keeps the input as `crash-…`, as for any other trap.
    public static func require(
        _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
        file: StaticString = #fileID, line: UInt = #line
    ) {
        guard !condition() else { return }
        fatalError("invariant failed: \(message())", file: file, line: line)
    }

    /// The input as a `String`, when its bytes are UTF-8 (the readers that take text take only UTF-8).
    public static func text(_ bytes: UnsafeRawBufferPointer) -> String? {
        String(validating: bytes, as: UTF8.self)
    }

    /// The repository's root folder (this file is `Fuzz/Support/FuzzSupport.swift`), for the demo manifests.
    public static var repositoryRoot: String {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }
}
