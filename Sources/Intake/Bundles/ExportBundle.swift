import Tracks
import Unlocks

/// An app's export recognised by its layout (never by the zip's name), in a folder walk or in a
/// zip: which of its files are tracks, which are its metadata, and (Strava) the label of each
/// activity. Rules (docs/input-formats.md, "Export bundles"); `D` is any folder, the archive's
/// root included:
/// - **Strava** bulk export: `D/activities.csv` beside a `D/activities/` folder. Files under
///   `activities/` are tracks, labelled by `activities.csv`; `routes/` holds planned routes;
///   the files directly in `D` (the other CSVs) and in `media/` and `clubs/` are metadata;
///   other subfolders are not Strava's and are read as usual.
/// - **Garmin** "Export Your Data": a `D/DI_CONNECT/` folder. Its JSON, CSV, text and XML files
///   are metadata; everything else (the upload zips of FIT files) is read as usual.
/// - **Apple Health** `export.zip`: `D/export.xml` beside `D/export_cda.xml` or a
///   `D/workout-routes/` folder. `workout-routes/` files are tracks; the files directly in `D`
///   (`export.xml`, `export_cda.xml`) and in `electrocardiograms/` and `clinical-records/` are
///   metadata; other subfolders are read as usual.
/// - **Google Takeout**: a `D/Takeout/` folder holding `archive_browser.html`, `Fit/` or
///   `Location History/` (`Location History (Timeline)/`). `archive_browser.html` and every file
///   under `Fit/` but `Fit/Activities/` (the TCX tracks) — the daily metrics CSVs, the sessions'
///   and data sources' JSON — are metadata; everything else (location history, other products'
///   files) is read as usual.
public struct ExportBundle: Sendable {
    public typealias Kind = ExportKind

    /// What a file in a bundle is.
    enum Role: Equatable {
        /// A track, with its label when the bundle gives one.
        case track(ActivityLabel?)
        /// Strava's `activities.csv`: read for the labels, then skipped as metadata; with the
        /// error when its labels could not be read (the table is then rejected).
        case activityTable(InputError?)
        case plannedRoute
        case metadata(Kind)
        /// Nothing the bundle says: read as any file would be.
        case ordinary
    }

    let kind: Kind
    /// The folder the bundle is in, as a prefix of its files' names (`""` or ending in `/`).
    let root: String
    /// Strava: labels by the `Filename` column (`activities/123.gpx.gz`).
    var labels: [String: ActivityLabel] = [:]
    /// Strava: why `activities.csv` could not be read, when it could not.
    var labelProblem: InputError?

    /// The bundles among `names` (slash-separated paths: a walk's paths or a zip's entry names).
    static func recognise(_ names: [String]) -> [ExportBundle] {
        var prefixes = Set<String>()
        let nameSet = Set(names)
        for name in names {
            var index = name.startIndex
            while let slash = name[index...].firstIndex(of: "/") {
                prefixes.insert(String(name[...slash]))
                index = name.index(after: slash)
            }
        }
        func folder(_ name: String, endingIn suffix: String) -> String? {
            guard name.hasSuffix(suffix) else { return nil }
            let root = String(name.dropLast(suffix.count))
            return root.isEmpty || root.hasSuffix("/") ? root : nil
        }
        var found: [ExportBundle] = []
        for name in names {
            if let root = folder(name, endingIn: "activities.csv"), prefixes.contains(root + "activities/") {
                found.append(ExportBundle(kind: .strava, root: root))
            }
            if let root = folder(name, endingIn: "export.xml"),
               nameSet.contains(root + "export_cda.xml") || prefixes.contains(root + "workout-routes/") {
                found.append(ExportBundle(kind: .appleHealth, root: root))
            }
        }
        for prefix in prefixes {
            if let root = folder(prefix, endingIn: "DI_CONNECT/") { found.append(ExportBundle(kind: .garmin, root: root)) }
            if let root = folder(prefix, endingIn: "Takeout/"),
               nameSet.contains(prefix + "archive_browser.html") || Self.takeoutProducts.contains(where: { prefixes.contains(prefix + $0) }) {
                found.append(ExportBundle(kind: .googleTakeout, root: root))
            }
        }
        // The innermost bundle decides for its files.
        return found.sorted { ($0.root.count, $0.root) > ($1.root.count, $1.root) }
    }

    /// The role of `name` in the innermost of `bundles` that holds it.
    static func role(of name: String, in bundles: [ExportBundle]) -> Role {
        guard let bundle = bundles.first(where: { name.hasPrefix($0.root) }) else { return .ordinary }
        return bundle.role(ofMember: String(name.dropFirst(bundle.root.count)))
    }

    /// The role of `member`, a path relative to ``root``.
    func role(ofMember member: String) -> Role {
        let lower = member.lowercased()
        switch kind {
        case .strava:
            if member == "activities.csv" { return .activityTable(labelProblem) }
            if member.hasPrefix("activities/") { return .track(labels[member]) }
            if member.hasPrefix("routes/") { return .plannedRoute }
            return isExportOwn(member, folders: Self.stravaFolders) ? .metadata(kind) : .ordinary
        case .garmin:
            guard member.hasPrefix("DI_CONNECT/") else { return .ordinary }
            return [".json", ".csv", ".txt", ".xml"].contains(where: { lower.hasSuffix($0) }) ? .metadata(kind) : .ordinary
        case .appleHealth:
            if member.hasPrefix("workout-routes/") { return .track(nil) }
            return isExportOwn(member, folders: Self.appleHealthFolders) ? .metadata(kind) : .ordinary
        case .googleTakeout:
            if member == "Takeout/archive_browser.html" { return .metadata(kind) }
            return member.hasPrefix("Takeout/Fit/") && !member.hasPrefix("Takeout/Fit/Activities/") ? .metadata(kind) : .ordinary
        }
    }

    /// The Takeout folders that make a `Takeout/` folder Google's (with `archive_browser.html`).
    static let takeoutProducts = ["Fit/", "Location History/", "Location History (Timeline)/"]

    /// Strava's and Apple Health's own folders besides the tracks' (photos, club images; ECGs,
    /// clinical records): their files are metadata.
    static let stravaFolders = ["media/", "clubs/"]
    static let appleHealthFolders = ["electrocardiograms/", "clinical-records/"]

    /// A file the export itself wrote: directly in its folder, or in one of its own subfolders.
    /// Files in other subfolders (something the user put beside the export) are read as usual.
    private func isExportOwn(_ member: String, folders: [String]) -> Bool {
        !member.contains("/") || folders.contains { member.hasPrefix($0) }
    }
}

/// What an export says about one activity (Strava's `activities.csv`).
public struct ActivityLabel: Equatable, Sendable {
    public var type: String?
    public var name: String?
    public var date: String?

    /// Strava's virtual sports (`VirtualRide`, `VirtualRun`, `VirtualRow`; the CSV may spell them
    /// `Virtual Ride`): recorded on a trainer, drawn on a virtual world's real coordinates.
    public var isVirtual: Bool {
        guard let type else { return false }
        return type.lowercased().filter { $0 != " " }.hasPrefix("virtual")
    }
}

