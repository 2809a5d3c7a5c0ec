import ChinaDatum
import Tracks

/// `unlocks convert`: CSV `lat,lon` in one datum → the same CSV in another, 9 decimals.
enum ConvertCommand {
    static let spec = CommandSpec(
        name: "convert",
        abstract: "Convert lat,lon CSV between WGS-84, GCJ-02 and BD-09.",
        usage: "--from wgs84|gcj02|bd09 --to wgs84|gcj02|bd09 [FILE|-]",
        options: [
            .value("from", "DATUM", "Datum of the input: wgs84, gcj02 or bd09."),
            .value("to", "DATUM", "Datum of the output: wgs84, gcj02 or bd09."),
        ],
        discussion: """
        Reads FILE (or standard input when FILE is '-' or absent): one 'lat,lon' per line, an
        optional header line, extra columns passed through unchanged. A header names the columns
        (lat and lon, or latitude and longitude, in any order: 'lon,lat', 'id,lat,lon'); a header
        naming neither is an error. Writes the same lines with the converted coordinates in their
        columns to standard output, 9 decimals.

        The GCJ-02 shift applies inside the published China rectangle (lon 72.004-137.8347,
        lat 0.8293-55.8271); points outside it are passed through unshifted. BD-09 applies
        everywhere. GCJ-02 -> WGS-84 is iterated to a round-trip error below 1e-8 degrees.

        A bad line (not a number, NaN, out of range, longer than 1 MiB, or converted out of range:
        BD-09's shift applies everywhere, and near a pole or the antimeridian it leaves the globe)
        is reported on standard error as 'unlocks: FILE:LINE: reason' and skipped; the rest is
        converted and the exit code is 3.
        """
    )

    static func run(_ arguments: ParsedArguments) throws -> ExitCode {
        guard let source = try arguments.choice("from", as: Datum.self) else {
            throw UsageError(message: "missing required option '--from'")
        }
        guard let target = try arguments.choice("to", as: Datum.self) else {
            throw UsageError(message: "missing required option '--to'")
        }
        guard arguments.positionals.count <= 1 else {
            throw UsageError(message: "expected at most one input file, got \(arguments.positionals.count)")
        }
        let path = arguments.positionals.first ?? "-"
        let displayName = path == "-" ? "<stdin>" : path
        let converter = DatumConverter()
        let output = BufferedOutput()
        var rejected = 0
        var reader = LineReader(try FileSource(path: path), path: displayName)
        defer { reader.close() }
        var columns = CoordinateColumns()
        try reader.forEachLine(overlong: { number in
            rejected += 1
            reportError(InputError(path: displayName, line: number, reason: "line longer than \(LineReader<FileSource>.maximumLineLength) bytes (skipped)").description)
        }) { line, number in
            if line.isEmpty { return }
            if number == 1, CoordinateCSV.isHeader(line) {
                columns = try Self.columns(header: line, path: displayName)
                try output.write(line)
                try output.write(byte: UInt8(ascii: "\n"))
                return
            }
            let parsed: CoordinateLine
            do {
                parsed = try CoordinateCSV.parse(line, columns: columns)
            } catch let error as CoordinateCSV.LineError {
                rejected += 1
                reportError(InputError(path: displayName, line: number, reason: error.description).description)
                return
            }
            let c = converter.convert(Coordinate(latitude: parsed.latitude, longitude: parsed.longitude),
                                      from: source, to: target)
            guard c.isValid else {
                // BD-09's shift applies everywhere: near a pole or the antimeridian it leaves the globe.
                rejected += 1
                reportError(InputError(path: displayName, line: number, reason: "\(parsed.latitude),\(parsed.longitude) converts from \(source.rawValue) to \(target.rawValue) "
                                       + "to \(c.latitude),\(c.longitude), outside ±90° latitude and ±180° longitude (skipped)").description)
                return
            }
            if let fields = parsed.fields {
                // Named columns: each coordinate replaces its own field, the rest of the line kept.
                let both = [(fields.latitude, c.latitude), (fields.longitude, c.longitude)].sorted { $0.0.lowerBound < $1.0.lowerBound }
                var from = 0
                for (field, value) in both {
                    try output.write(UnsafeRawBufferPointer(rebasing: line[from..<field.lowerBound]))
                    try output.write(fixed: value, decimals: 9)
                    from = field.upperBound
                }
                try output.write(UnsafeRawBufferPointer(rebasing: line[from...]))
            } else {
                try output.write(fixed: c.latitude, decimals: 9)
                try output.write(byte: UInt8(ascii: ","))
                try output.write(fixed: c.longitude, decimals: 9)
                if let rest = parsed.restOffset { try output.write(UnsafeRawBufferPointer(rebasing: line[rest...])) }
            }
            try output.write(byte: UInt8(ascii: "\n"))
        }
        try output.flush()
        return rejected > 0 ? .inputsRejected : .success
    }

    /// The columns a header line names (shared with `locate`); one that names no coordinates stops
    /// the file: 'unlocks: FILE:1: reason', exit 1.
    static func columns(header: UnsafeRawBufferPointer, path: String) throws -> CoordinateColumns {
        do {
            return try CoordinateColumns(header: header)
        } catch {
            throw InputError(path: path, line: 1, reason: error.description)
        }
    }
}
