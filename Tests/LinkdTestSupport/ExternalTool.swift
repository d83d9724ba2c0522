public import Foundation

/// Runs real outside programs (python3 with segno, zbarimg, chromium) for the tests.
public enum ExternalTool {
    /// A tool that is missing or failed, with what to do about it.
    public struct Failure: Error, CustomStringConvertible {
        /// The message.
        public let description: String
        /// Creates a failure.
        public init(description: String) { self.description = description }
    }

    /// Finds `name` on PATH (plus the usual system directories) or throws a message that says how to install it.
    public static func path(_ name: String, install: String) throws -> String {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/bin", "/usr/local/bin", "/bin"]
        for directory in directories {
            let candidate = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw Failure(description: "\(name) is not installed; run `\(install)` (scripts/ensure-deps.sh test)")
    }

    /// Runs a program, feeding `input` on stdin; returns stdout, throws on a non-zero exit with stderr.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], input: [UInt8] = []) throws -> [UInt8] {
        let result = try runToEnd(executable, arguments, input: input)
        guard result.status == 0 else {
            throw Failure(
                description: "\(executable) \(arguments.joined(separator: " ")) exited "
                    + "\(result.status): \(String(decoding: result.stderr, as: UTF8.self))")
        }
        return Array(result.stdout)
    }

    /// Runs a program to its end, feeding `input` on stdin: its exit status, standard output and standard error.
    public static func runToEnd(
        _ executable: String, _ arguments: [String], input: [UInt8] = []
    ) throws -> (status: Int32, stdout: Data, stderr: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input))
        try stdin.fileHandleForWriting.close()
        // Read both pipes concurrently so a chatty stderr cannot block the child.
        nonisolated(unsafe) var errorBytes = Data()
        let errorReader = Thread { errorBytes = stderr.fileHandleForReading.readDataToEndOfFile() }
        errorReader.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while errorReader.isExecuting || !errorReader.isFinished { usleep(1000) }
        return (process.terminationStatus, output, errorBytes)
    }

    /// A fresh temporary directory for one test.
    public static func temporaryDirectory(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("linkd-web-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
