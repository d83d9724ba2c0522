import Foundation
import TokenSigning

/// What marks a directory as a `linkd serve` daemon's data directory, so that the offline keyring verbs
/// (`linkd token keyring …`) refuse it: their keyring is a separate file the daemon never reads, and keys made there
/// would not be the daemon's.
public enum DaemonDataDirectory {
    /// The file the daemon writes in its data directory at every start (it says what the directory is and where the
    /// keys are managed): present on SQLite and PostgreSQL daemons alike.
    public static let markerFileName = "LINKD-DAEMON.txt"
    /// The files that, when present, make a directory a daemon's: the marker, the SQLite store, the first admin key.
    public static let fileNames = [markerFileName, "linkd.sqlite", "initial-admin-key"]

    /// The marker's text.
    static let markerText = """
        This is the data directory of a `linkd serve` daemon. Its signing keys are in the daemon's store, managed
        over the admin API: `linkd admin keys list|rotate|retire` (docs/admin-cli.md). The offline keyring verbs
        (`linkd token keyring …`) refuse this directory.

        """

    /// The first daemon file found in `directory`, nil when there is none.
    public static func daemonFile(in directory: String) -> String? {
        fileNames.lazy.map { directory + "/" + $0 }.first(where: FileProbe.entryExists)
    }

    /// Writes the marker into `directory` when it is not there (mode 0600 under the daemon's umask); a failure is
    /// not an error (the SQLite store marks the directory too), so it returns whether the marker is there.
    @discardableResult
    static func mark(_ directory: String) -> Bool {
        let path = directory + "/" + markerFileName
        if FileManager.default.fileExists(atPath: path) { return true }
        return FileManager.default.createFile(atPath: path, contents: Data(markerText.utf8))
    }
}
