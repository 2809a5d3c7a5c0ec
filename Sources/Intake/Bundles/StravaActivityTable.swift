import Tracks

/// Reads Strava's `activities.csv`: RFC 4180 CSV (quoted fields may hold commas, quotes as `""`
/// and line breaks: activity names and descriptions do), a header row naming the columns.
/// Columns are found by name (the first of repeated names); rows without a `Filename` are
/// activities with no file (manual entries) and are passed over. Filenames are relative to the
/// export's folder, `./activities/…` as `activities/…`. A table that cannot be read whole (no
/// `Filename` column, a quote never closed) is an error: labels lost in silence would let a
/// virtual ride unlock where it was drawn.
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
        let rows = try records(bytes, path: path)
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
            var key = Substring(row[file].trimmingSpaces)
            while key.hasPrefix("./") { key = key.dropFirst(2) }
            guard !key.isEmpty else { continue }
            func field(_ index: Int?) -> String? {
                guard let index, index < row.count else { return nil }
                let value = row[index].trimmingSpaces
                return value.isEmpty ? nil : value
            }
            labels[String(key)] = ActivityLabel(type: field(type), name: field(name), date: field(date))
        }
        return labels
    }

    /// The CSV's records, each a list of fields; a quote still open at the end is an error
    /// naming the line it opened on (every row after it would be one field).
    static func records(_ bytes: [UInt8], path: String) throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var line = 1, quoteLine = 1
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
                    if byte == 0x0A { line += 1 }
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
                quoteLine = line
            } else if byte == UInt8(ascii: ",") {
                endField()
            } else if byte == 0x0A || byte == 0x0D {
                endField()
                if row != [""] { rows.append(row) }
                row = []
                if byte == 0x0D, i + 1 < bytes.count, bytes[i + 1] == 0x0A { i += 1 }
                line += 1
            } else {
                field.append(byte)
            }
            i += 1
        }
        if quoted {
            throw InputError(path: path, line: quoteLine, reason: "a quoted field opened here is never closed; activities are not labelled")
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
