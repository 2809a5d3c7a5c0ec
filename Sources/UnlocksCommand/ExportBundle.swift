import Tracks

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
struct ExportBundle {
    enum Kind: String {
        case strava = "a Strava export"
        case garmin = "a Garmin export"
        case appleHealth = "an Apple Health export"
    }

    /// What a file in a bundle is.
    enum Role: Equatable {
        /// A track, with its label when the bundle gives one.
        case track(ActivityLabel?)
        /// Strava's `activities.csv`: read for the labels, then skipped as metadata.
        case activityTable
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
            if member == "activities.csv" { return .activityTable }
            if member.hasPrefix("activities/") { return .track(labels[member]) }
            if member.hasPrefix("routes/") { return .plannedRoute }
            return isExportOwn(member, folders: Self.stravaFolders) ? .metadata(kind) : .ordinary
        case .garmin:
            guard member.hasPrefix("DI_CONNECT/") else { return .ordinary }
            return [".json", ".csv", ".txt", ".xml"].contains(where: { lower.hasSuffix($0) }) ? .metadata(kind) : .ordinary
        case .appleHealth:
            if member.hasPrefix("workout-routes/") { return .track(nil) }
            return isExportOwn(member, folders: Self.appleHealthFolders) ? .metadata(kind) : .ordinary
        }
    }

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
struct ActivityLabel: Equatable {
    var type: String?
    var name: String?
    var date: String?

    /// Strava's virtual sports (`VirtualRide`, `VirtualRun`, `VirtualRow`; the CSV may spell them
    /// `Virtual Ride`): recorded on a trainer, drawn on a virtual world's real coordinates.
    var isVirtual: Bool {
        guard let type else { return false }
        return type.lowercased().filter { $0 != " " }.hasPrefix("virtual")
    }
}

/// Reads Strava's `activities.csv`: RFC 4180 CSV (quoted fields may hold commas, quotes as `""`
/// and line breaks: activity names and descriptions do), a header row naming the columns.
/// Columns are found by name (the first of repeated names); rows without a `Filename` are
/// activities with no file (manual entries) and are passed over.
enum StravaActivityTable {
    /// Larger tables are refused (about 2,000 bytes a row: some 30,000 activities).
    static let maximumBytes = 64 << 20

    static func labels<Source: ByteSource>(_ source: Source, path: String) throws -> [String: ActivityLabel] {
        var source = source
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { break }
            bytes += chunk[0..<n]
            guard bytes.count <= maximumBytes else {
                throw InputError(path: path, reason: "larger than \(maximumBytes >> 20) MiB; activities are not labelled")
            }
        }
        let rows = records(bytes)
        guard let header = rows.first else { return [:] }
        func column(_ name: String) -> Int? {
            header.firstIndex { $0.trimmingSpaces.lowercased() == name }
        }
        guard let file = column("filename") else {
            throw InputError(path: path, line: 1, reason: "no Filename column; activities are not labelled")
        }
        let type = column("activity type"), name = column("activity name"), date = column("activity date")
        var labels: [String: ActivityLabel] = [:]
        for row in rows.dropFirst() where file < row.count {
            let key = row[file].trimmingSpaces
            guard !key.isEmpty else { continue }
            func field(_ index: Int?) -> String? {
                guard let index, index < row.count else { return nil }
                let value = row[index].trimmingSpaces
                return value.isEmpty ? nil : value
            }
            labels[key] = ActivityLabel(type: field(type), name: field(name), date: field(date))
        }
        return labels
    }

    /// The CSV's records, each a list of fields.
    static func records(_ bytes: [UInt8]) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func endField() {
            row.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
        }
        while i < bytes.count {
            let byte = bytes[i]
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\"") { field.append(byte); i += 1 } else { quoted = false }
                } else {
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
            } else if byte == UInt8(ascii: ",") {
                endField()
            } else if byte == 0x0A || byte == 0x0D {
                endField()
                if row != [""] { rows.append(row) }
                row = []
                if byte == 0x0D, i + 1 < bytes.count, bytes[i + 1] == 0x0A { i += 1 }
            } else {
                field.append(byte)
            }
            i += 1
        }
        if !field.isEmpty || !row.isEmpty {
            endField()
            rows.append(row)
        }
        return rows
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
