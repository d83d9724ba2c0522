/// linkd's release version, as `linkd --version` prints it. `scripts/release.sh` writes it together with
/// `packaging/VERSION` and `clients/typescript/package.json`; `ReleaseTests` checks that the three agree.
enum LinkdVersion {
    /// The release this checkout builds (`X.Y.Z`); the git tag of a release is the same string.
    static let release = "0.1.0"
}
