import Testing
import LinkRouter

@Suite("Example manifests")
struct ExampleManifestTests {
    @Test("all four examples load together")
    func loadAll() throws {
        let manifests = try ManifestLoader.load(paths: Examples.all)
        #expect(manifests.map(\.app) == ["handz", "coin", "ordentus", "story"])
    }

    @Test("Handz carries every route id of sections 4.1–4.6 and 5.2 with its presentation and access")
    func handzRoutes() throws {
        let handz = try ManifestLoader.load(path: Examples.path("handz"))
        let fpt = ["free", "pro", "trial"]
        let expected: [(String, Presentation, [String])] = [
            ("Auth/WelcomeGate", .push, ["signedOut"]), ("Auth/SignUp", .push, ["signedOut"]),
            ("Auth/LogIn", .push, ["signedOut"]), ("Auth/ForgotPassword", .sheetLarge, ["signedOut"]),
            ("Auth/EmailVerifyPending", .push, ["signedOut"]), ("Onboarding/MovePreferences", .push, fpt),
            ("Onboarding/TutorialOverlay", .overlay, fpt), ("App/Tabs", .root, fpt), ("Tab/Library", .root, fpt),
            ("Tab/Practice", .root, fpt), ("Tab/Moves", .root, fpt), ("Tab/Settings", .root, fpt),
            ("Library/Home", .push, fpt), ("Library/Folder", .push, fpt), ("Library/FlowDetail", .push, fpt),
            ("Library/FlowBuilder", .push, fpt), ("Library/FlowBuilderSandbox", .push, ["signedOut", "guest"]),
            ("Library/Inbox", .push, fpt), ("Library/InboxItem", .push, fpt), ("Library/ImportConflict", .sheetLarge, fpt),
            ("Practice/Home", .push, fpt), ("Practice/Setup", .push, fpt), ("Practice/Active", .push, fpt),
            ("Practice/Summary", .push, fpt), ("Practice/History", .push, fpt), ("Practice/Gameplans", .push, fpt),
            ("Practice/Maintenance", .push, fpt), ("Practice/Gate", .fullScreen, ["free"]),
            ("Moves/Home", .push, fpt), ("Moves/MoveDetail", .push, fpt), ("Moves/CreateMove", .push, fpt),
            ("Moves/EditMove", .push, fpt), ("Moves/AliasPicker", .sheetLarge, fpt), ("Moves/FamilyPicker", .sheetLarge, fpt),
            ("Settings/Home", .push, fpt), ("Settings/Account", .push, fpt), ("Settings/Subscription", .push, fpt),
            ("Settings/Notifications", .push, fpt), ("Settings/Privacy", .push, fpt), ("Settings/Help", .push, fpt),
            ("Paywall/Upgrade", .fullScreen, ["free"]), ("System/ShareSheet", .system, fpt),
            ("System/MediaPicker", .system, fpt), ("System/PermissionGate", .sheetLarge, fpt),
            ("Modal/MovePicker", .sheetLarge, ["signedOut", "guest"] + fpt), ("Modal/CreateMoveInLine", .sheetLarge, fpt),
            ("Modal/NodeActions", .actionSheet, fpt), ("Modal/SequenceEditOr", .sheetLarge, fpt),
            ("Modal/ImportConflict", .sheetLarge, fpt), ("Modal/UpgradePaywall", .fullScreen, ["free"]),
            ("Modal/SoftWarning", .sheetLarge, fpt),
        ]
        for (id, presentation, states) in expected {
            let route = try #require(handz.routes[id], "missing \(id)")
            #expect(route.presentation == presentation, "\(id)")
            #expect(Set(route.states) == Set(states), "\(id)")
        }
        #expect(handz.routes["ShareLink/FlowView"] != nil)
    }
}
