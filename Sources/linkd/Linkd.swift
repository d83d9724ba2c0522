import ArgumentParser

/// The `linkd` command: the daemon and its terminal tools.
@main
struct Linkd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "linkd",
        abstract: "Deep-link and share-URL routing daemon.",
        version: LinkdVersion.release,
        subcommands: [
            AdminCommand.self, TokenCommand.self, ManifestCommand.self, ResolveCommand.self, ICSCommand.self, CodegenCommand.self,
            ServeCommand.self,
            RemovedKeysCommand.self,
        ]
    )
}
