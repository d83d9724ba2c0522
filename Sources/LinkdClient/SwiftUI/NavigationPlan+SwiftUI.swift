#if canImport(SwiftUI)
public import SwiftUI

/// SwiftUI's side of a plan: one `NavigationPath` per tab, a tab selection, a sheet or cover. Not built on Linux.
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
extension NavigationPlan {
    /// Applies the plan to an app's navigation state: selects the plan's tab (when it names one), replaces that
    /// tab's path (or `paths[""]`, the path of a state without tabs) with the plan's `pushed` screens, and sets
    /// `presented` to what to present over it (nil when nothing is). The app's `navigationDestination(for:
    /// NavigationPlan.Screen.self)` and `.sheet(item:)` / `.fullScreenCover(item:)` map route ids to views.
    public func apply(selectedTab: inout String, paths: inout [String: NavigationPath], presented: inout Screen?) {
        if let tab { selectedTab = tab }
        var path = NavigationPath()
        for screen in pushed { path.append(screen) }
        paths[tab ?? ""] = path
        presented = self.presented
    }
}
#endif
