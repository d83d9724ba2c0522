public import Foundation

/// Runs the built `linkd` binary as a child process, for the CLI tests of every module.
public enum LinkdProcess {
    /// What one run printed and how it exited.
    public struct Output: Sendable {
        /// The exit status.
        public let status: Int32
        /// Standard output, decoded as UTF-8.
        public let stdout: String
        /// Standard error, decoded as UTF-8.
        public let stderr: String
    }

    /// The binary could not be found next to the test bundle or in `.build/debug`.
    public struct BinaryNotFound: Error, CustomStringConvertible {
        /// Why the run could not start.
        public var description: String { "linkd binary not found: build the linkd product first (swift build --build-tests)" }
    }

    /// The repository root (the folder holding Package.swift).
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built `linkd`: next to the test bundle, else `.build/debug/linkd` of this checkout.
    public static var binary: String? {
        [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("linkd").path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("linkd").path,
            repositoryRoot.appendingPathComponent(".build/debug/linkd").path,
        ].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `linkd ARGUMENTS` and waits for it.
    /// - Parameters:
    ///   - arguments: the command line after `linkd`.
    ///   - workingDirectory: the child's working directory (default: inherited).
    ///   - unsetting: environment variables removed for the child, so the caller's shell cannot leak into a test.
    ///   - environment: variables set for the child.
    ///   - binary: the executable (default: the built `linkd`).
    public static func run(
        _ arguments: [String], workingDirectory: URL? = nil, unsetting: [String] = [], environment extra: [String: String] = [:],
        binary: String? = binary
    ) throws -> Output {
        guard let binary else { throw BinaryNotFound() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        var environment = ProcessInfo.processInfo.environment
        for name in unsetting { environment[name] = nil }
        for (name, value) in extra { environment[name] = value }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}
