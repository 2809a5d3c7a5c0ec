import Intake
import RegionTables
import TextFormats
import BorderAudit
import Unlocks

/// `unlocks audit --tables [DIR]`: the shipped tables audited as a whole (figures on standard
/// output, `tables-audit.json` and `tables-audit.html` in the output folder).
enum TableAuditCommand {
    static func run(tables directory: String, out: String) throws -> ExitCode {
        let tables = try TableSet(directory: directory)
        let manifestPath = directory + "/manifest.json"
        var manifest: JSONValue?
        if let bytes = try AtomicFile.readIfPresent(manifestPath) {
            do {
                manifest = try JSONParser.parse(bytes)
            } catch {
                throw AtomicFile.WriteError(path: manifestPath, reason: "not valid JSON: \(error)")
            }
        }
        let audit = TableAudit(tables: tables, manifest: manifest)
        try OutputFolder.write(to: out, [
            ("tables-audit.json", audit.json().renderedUTF8() + [0x0A]),
            ("tables-audit.html", Array(audit.html().utf8)),
        ])
        let output = BufferedOutput()
        try output.write(audit.text() + "\nWrote \(out)/tables-audit.json, tables-audit.html\n")
        try output.flush()
        return .success
    }
}
