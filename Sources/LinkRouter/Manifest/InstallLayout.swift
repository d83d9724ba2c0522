import Foundation

/// Where linkd's data files (`templates`, `examples`) are for the running executable, wherever it was started from:
/// beside an installed binary (`<prefix>/bin/linkd` → `<prefix>/share/linkd/<name>`), or in the checkout a binary was
/// built in (`<checkout>/.build/…/linkd` → `<checkout>/<name>`).
public enum InstallLayout {
    /// The data directory `name` of the executable at `executable` (default: this process's, symbolic links
    /// resolved): the install's `share/linkd/<name>` when it exists, else the `<name>` folder of the nearest enclosing
    /// directory holding `Package.swift` (a checkout's build); nil when neither exists.
    public static func directory(_ name: String, executable: String? = executablePath) -> String? {
        guard let executable else { return nil }
        let bin = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let installed = bin.deletingLastPathComponent().appendingPathComponent("share/linkd/\(name)").path
        if isDirectory(installed) { return installed }
        var folder = bin
        for _ in 0..<6 {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                let candidate = folder.appendingPathComponent(name).path
                return isDirectory(candidate) ? candidate : nil
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        return nil
    }

    /// This process's executable, symbolic links resolved (`/proc/self/exe` on Linux); nil when it cannot be read.
    public static var executablePath: String? {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return Bundle.main.executablePath.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }
}
