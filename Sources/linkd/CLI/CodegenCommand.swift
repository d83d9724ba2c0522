import ArgumentParser
import Foundation
import LinkRouter
import LinkdServer
import RouteCodegen

/// `linkd codegen --lang LANG MANIFEST`: the code of an app's build made from its manifest file, on standard output
/// (docs/codegen.md). The header names the manifest's hash as the daemon computes it, and no version: a file is not
/// a published version (`GET /v1/apps/{app}/codegen/{lang}` gives the one in force, with its version).
struct CodegenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codegen",
        abstract: "Print code made from an app's manifest: route ids with typed params, tabs, states, link config.",
        discussion: """
            Languages: swift (enum <App>Links: RouteID, Route with typed params, Tab, State), typescript (ROUTES as const, \
            RouteParams, React Navigation's linking), kotlin (object <App>Links: constants), android-manifest (the \
            <intent-filter> elements of the app's links). The same manifest gives the same bytes. docs/codegen.md.
            """
    )

    @Option(name: [.customLong("lang"), .customShort("l")], help: "swift, typescript, kotlin or android-manifest.")
    var language: String

    @Argument(help: "The manifest (a YAML file).")
    var file: String

    func validate() throws {
        do {
            _ = try RouteCodegen.language(named: language)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() throws {
        let language = try RouteCodegen.language(named: self.language)
        let loaded: ManifestLoader.LoadedFile
        do {
            loaded = try ManifestLoader.loadFiles(paths: [file])[0]
        } catch {
            for problem in error.errors { printError(problem.description) }
            throw ExitCode(1)
        }
        FileHandle.standardOutput.write(Data(ManifestCodegen.generate(language, file: loaded).utf8))
    }
}
