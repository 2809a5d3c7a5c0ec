/// Recognises the files this tool writes, so that `classify` and `audit` never read them back as
/// tracks (`unlocks audit .` writes `./audit/` inside the archive it reads). By content, not by
/// name or place, since `--out` can put them anywhere: within the first bytes,
/// - a logbook: an SQLite database (`SQLite format 3` and a NUL) whose application id (big-endian
///   at byte 68) is the logbook's, `AULB`; and a state file of the previous format: its magic,
///   `AUSTATE` and its version digit (every version: an old state left in an archive is no track
///   either);
/// - a JSON object whose `report` member (the first member of every report: classify, audit,
///   table audit) or `generator` member (audit.geojson's second) is a string starting with
///   `adminunlocks-`. The app backup format's `"format": "adminunlocks-backup"` is a track
///   format and is not matched (the map's GeoJSON files carry `"generator":"adminunlocks-map"`);
/// - the map's GPX waypoint files: a `<gpx` element with `creator="adminunlocks-map"`.
enum OwnOutput {
    static let stateMagic = Array("AUSTATE".utf8)
    static let mapGPXCreator = Array("creator=\"adminunlocks-map\"".utf8)

    static let sqliteMagic = Array("SQLite format 3\u{0}".utf8)
    static let logbookApplicationID: [UInt8] = Array("AULB".utf8)

    static func recognises(_ prefix: [UInt8]) -> Bool {
        if prefix.starts(with: stateMagic) { return true }
        if prefix.starts(with: sqliteMagic), prefix.count >= 72, Array(prefix[68..<72]) == logbookApplicationID { return true }
        if let gpx = firstIndex(of: Array("<gpx ".utf8), in: prefix, from: 0),
           let creator = firstIndex(of: mapGPXCreator, in: prefix, from: gpx),
           !prefix[gpx..<creator].contains(UInt8(ascii: ">")) { return true }
        guard prefix.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) == UInt8(ascii: "{") else { return false }
        for key in ["\"report\"", "\"generator\""] {
            var start = prefix.startIndex
            let needle = Array(key.utf8)
            while let found = firstIndex(of: needle, in: prefix, from: start) {
                var i = found + needle.count
                func skipSpace() { while i < prefix.count, [0x20, 0x09, 0x0A, 0x0D].contains(prefix[i]) { i += 1 } }
                skipSpace()
                if i < prefix.count, prefix[i] == UInt8(ascii: ":") {
                    i += 1
                    skipSpace()
                    if prefix[i...].starts(with: Array("\"adminunlocks-".utf8)) { return true }
                }
                start = found + 1
            }
        }
        return false
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        var i = start
        while i + needle.count <= bytes.count {
            if bytes[i] == needle[0], bytes[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
