/// What an app does with a `Resolution`, for the caller's session state: the tab to select, the screens to put on
/// its navigation stack, what to present over them and how, whether the tab bar shows, where closing goes, and
/// the link to resume after sign-in.
///
/// The plan only reads the resolution: every decision (which tab, which stack, which state goes where) is the
/// server's, from the app's manifest. Applying it is the app's: `Screen.route` is a route id of the manifest
/// (`ShareLink/FlowView`), which the app maps to its views.
public struct NavigationPlan: Sendable, Hashable {
    /// One screen: a route id of the app's manifest and its params.
    public struct Screen: Sendable, Hashable, Codable, Identifiable {
        /// The route id.
        public var route: String
        /// Its params. The stack's screens carry the link's params too: a parent takes those it needs
        /// (`Library/FlowDetail` under `Library/FlowBuilder` takes `flowId`).
        public var params: [String: String]

        /// Creates a screen.
        public init(route: String, params: [String: String] = [:]) {
            self.route = route
            self.params = params
        }

        /// The route id and its params, sorted (`Library/FlowDetail?flowId=…`): another screen is another id, so
        /// that SwiftUI's `.sheet(item:)` presents it anew.
        public var id: String {
            route + "?" + params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        }
    }

    /// How the target is shown.
    public enum Step: Sendable, Hashable {
        /// The target is the root itself (a tab's root, the state's root screen): select it, push nothing.
        case root
        /// Pushed on the stack, after `pushed`'s other screens.
        case push
        /// Presented modally over the stack, in this presentation (`sheetMedium`, `sheetLarge`, `fullScreen`,
        /// `alert`, `actionSheet`, `system`, or one a newer server names).
        case present(Presentation)
        /// Drawn over the stack without being modal.
        case overlay
        /// Nothing to show: the URL led nowhere and the app has no not-found route (`problem` says why). Stay put.
        case none
    }

    /// The resolution's outcome.
    public var outcome: Resolution.Outcome
    /// The session state the plan is for.
    public var state: String
    /// The tab to select; nil when the state has no tab shell (signed out).
    public var tab: String?
    /// The screen at the bottom of the stack: the tab's root, the state's root screen, or the top of the target's
    /// parent chain; the target itself when it is a root. Nil when the resolution has no stack and nothing to push.
    public var root: Screen?
    /// The screens to push on `root`, in order (the target last when `step` is `.push`). A SwiftUI
    /// `NavigationPath` of the tab is exactly these.
    public var pushed: [Screen]
    /// The screen the link opens: the target, the intercept screen, the unavailable screen or the not-found screen.
    public var target: Screen?
    /// How `target` is shown.
    public var step: Step
    /// Whether the tab bar shows while `target` does.
    public var tabBarVisible: Bool
    /// Where closing `target` goes for `state` (Handz's share view: the Welcome Gate signed out, `Tab/Library`
    /// signed in).
    public var closeReturnsTo: String?
    /// For an intercept: where dismissing the intercept screen goes ("where they were").
    public var interceptReturnsTo: String?
    /// For an intercept that keeps its target: the link to resume once the state allows it (after sign-in,
    /// after upgrading) — `LinkdClient.resume(_:state:)` resolves it for the new state.
    public var resumeAfterSignIn: Resolution.Continuation?
    /// Action name (`import`) → the screen to go to after it succeeds (Handz: the imported flow's
    /// `Library/FlowDetail`).
    public var afterActions: [String: Screen]
    /// For `.linkUnavailable`: the message to show ("This link is no longer available.").
    public var message: String?
    /// For `.linkUnavailable`: the call-to-action route for `state` (Go to Library / Welcome Gate).
    public var callToAction: String?
    /// For `.notFound`: why nothing matched.
    public var problem: Resolution.Problem?
    /// For `.updateRequired`: the version the link's route needs and the store page. The plan's screens are then
    /// the fallback's, the nearest screen this version has (no screens when it has none).
    public var update: Resolution.Update?

    /// The plan of `resolution` for a caller in `state` (the state the resolution was asked for).
    public init(_ original: Resolution, state: String) {
        let resolution = original.outcome == .updateRequired ? original.fallbackPlacement : original
        outcome = original.outcome
        update = original.update
        self.state = state
        tab = resolution.tab
        tabBarVisible = resolution.tabBarVisible
        let target = resolution.route.map { Screen(route: $0, params: resolution.params) }
        self.target = target
        let stack = resolution.stack.map { Screen(route: $0, params: resolution.params) }
        let presentation = resolution.presentation ?? .push
        switch (target, presentation) {
        case (nil, _): step = .none
        case (_, .root): step = .root
        case (_, .push): step = .push
        case (_, .overlay): step = .overlay
        case (_, let modal): step = .present(modal)
        }
        switch step {
        case .root:
            root = target
            pushed = []
        case .push:
            // With no stack the target is the bottom of it.
            root = stack.first ?? target
            pushed = stack.isEmpty ? [] : Array(stack.dropFirst()) + [target].compactMap { $0 }
        case .present, .overlay, .none:
            root = stack.first
            pushed = Array(stack.dropFirst())
        }
        closeReturnsTo = resolution.returnTo[state]
        interceptReturnsTo = resolution.intercept?.returnTo
        resumeAfterSignIn = resolution.intercept?.continuation
        afterActions = (resolution.afterActions ?? [:]).mapValues { Screen(route: $0.route, params: $0.params) }
        message = original.message
        callToAction = original.cta
        problem = original.problem
    }

    /// The screen presented over the stack (modally or as an overlay), if any.
    public var presented: Screen? {
        switch step {
        case .present, .overlay: target
        case .root, .push, .none: nil
        }
    }
}

extension Resolution {
    /// An `.updateRequired` resolution's fallback as a resolution of its own (nothing to show when there is none).
    var fallbackPlacement: Resolution {
        guard let fallback else { return Resolution(outcome: outcome, app: app) }
        return Resolution(
            outcome: outcome, app: app, route: fallback.route, params: fallback.params, tab: fallback.tab,
            presentation: fallback.presentation, tabBarVisible: fallback.tabBarVisible, stack: fallback.stack,
            returnTo: fallback.returnTo)
    }

    /// What the app does with this resolution, for a caller in `state` (the state it was resolved for).
    public func plan(for state: String) -> NavigationPlan {
        NavigationPlan(self, state: state)
    }
}
