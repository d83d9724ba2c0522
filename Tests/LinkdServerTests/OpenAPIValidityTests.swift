import Foundation
import LinkdTestSupport
import Testing

/// `docs/openapi.yaml` is a document OpenAPI tools accept: `openapi-spec-validator` (PyPI) passes it, as a client
/// generator or a fuzzer would read it first. `scripts/ensure-deps.sh test` installs the validator, so the check needs
/// no network while the tests run. `OpenAPITests` and `OpenAPIConstraintTests` hold the server to the document; this
/// holds the document to OpenAPI.
@Suite("OpenAPI document is valid OpenAPI")
struct OpenAPIValidityTests {
    /// What to tell whoever runs the tests when the validator is missing.
    static let install = "openapi-spec-validator (PyPI) is not installed: run scripts/ensure-deps.sh test"

    /// The validator as a command: its console script on PATH, else its module under `python3`; nil when neither is
    /// there.
    static func validatorCommand() -> (executable: String, arguments: [String])? {
        if let script = try? ExternalTool.path("openapi-spec-validator", install: "scripts/ensure-deps.sh test") {
            return (script, [])
        }
        if let python = try? ExternalTool.path("python3", install: "scripts/ensure-deps.sh test"),
           (try? ExternalTool.run(python, ["-c", "import openapi_spec_validator"])) != nil {
            return (python, ["-m", "openapi_spec_validator"])
        }
        return nil
    }

    @Test("openapi-spec-validator accepts docs/openapi.yaml")
    func documentIsValid() throws {
        let document = LinkdProcess.repositoryRoot.appendingPathComponent("docs/openapi.yaml").path
        guard let command = Self.validatorCommand() else {
            Issue.record("\(Self.install)")
            return
        }
        let run = try ExternalTool.runToEnd(command.executable, command.arguments + [document])
        let result = (status: run.status, output: String(decoding: run.stdout + run.stderr, as: UTF8.self))
        // A pyenv shim whose Python lacks the package exits 127; `python3 -m` without it names the missing module.
        let missing = result.status == 127 || result.output.contains("No module named")
        #expect(!missing, "\(Self.install)\n\(result.output.prefix(4_000))")
        #expect(missing || result.status == 0, "openapi-spec-validator refused docs/openapi.yaml (exit \(result.status)):\n\(result.output.prefix(20_000))")
    }
}
