/// The version of the AdminUnlocks package (semantic versioning; raised with each release, and
/// printed by `unlocks --version`).
public enum PackageVersion {
    public static let string = "0.1.0"
}
