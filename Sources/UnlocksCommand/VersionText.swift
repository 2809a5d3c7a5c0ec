import AdminUnlocks
import Foundation

/// `unlocks --version`: the package version and, for the tables the commands would use, their
/// folder, source release and hash, and each table's sha256 (from the manifest beside them).
enum VersionText {
    static func text() -> String {
        var text = "unlocks \(PackageVersion.string) (AdminUnlocks)\n"
        let folder: String
        do {
            folder = try TableSearch.find()
        } catch {
            return text + "tables: \(error)\n"
        }
        text += "tables: \(folder)\n"
        let manifestPath = folder + "/manifest.json"
        guard let data = FileManager.default.contents(atPath: manifestPath),
              let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return text + "  no readable manifest.json beside the tables (\(manifestPath))\n"
        }
        if let source = manifest["source"] as? [String: Any] {
            text += "  source \(source["release"] as? String ?? "?"), sha256 \(source["sha256"] as? String ?? "?")\n"
        }
        for table in manifest["tables"] as? [[String: Any]] ?? [] {
            text += "  \(table["file"] as? String ?? "?"): \(table["bytes"] as? Int ?? 0) bytes, sha256 \(table["sha256"] as? String ?? "?")\n"
        }
        return text
    }
}
