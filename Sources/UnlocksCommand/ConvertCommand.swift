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
        optional header line, extra columns passed through unchanged. Writes the same lines with
        the converted coordinates to standard output, 9 decimals.

        The GCJ-02 shift applies inside the published China rectangle (lon 72.004-137.8347,
        lat 0.8293-55.8271); points outside it are passed through unshifted. BD-09 applies
        everywhere. GCJ-02 -> WGS-84 is iterated to a round-trip error below 1e-8 degrees.

        A bad line (not a number, NaN, out of range) is reported on standard error as
        'unlocks: FILE:LINE: reason' and skipped; the rest is converted and the exit code is 3.
        """
    )

    /// Lines converted together (a few kilobytes of pending output).
    static let block = 256

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
        // Lines are converted in blocks (the GCJ-02 step runs in SIMD lanes over a batch, bit for
        // bit the per-point conversion), each line's extra columns kept until its block is written.
        var pending: [Coordinate] = []
        var rests: [UInt8] = []
        var restEnds: [Int] = []
        pending.reserveCapacity(Self.block)
        func writePending() throws {
            converter.convert(&pending, from: source, to: target)
            var start = 0
            for (k, c) in pending.enumerated() {
                try output.write(fixed: c.latitude, decimals: 9)
                try output.write(byte: UInt8(ascii: ","))
                try output.write(fixed: c.longitude, decimals: 9)
                if restEnds[k] > start { try rests.withUnsafeBytes { try output.write(UnsafeRawBufferPointer(rebasing: $0[start..<restEnds[k]])) } }
                try output.write(byte: UInt8(ascii: "\n"))
                start = restEnds[k]
            }
            pending.removeAll(keepingCapacity: true)
            rests.removeAll(keepingCapacity: true)
            restEnds.removeAll(keepingCapacity: true)
        }
        try reader.forEachLine { line, number in
            if line.isEmpty { return }
            if number == 1, CoordinateCSV.isHeader(line) {
                try output.write(line)
                try output.write(byte: UInt8(ascii: "\n"))
                return
            }
            let parsed: CoordinateLine
            do {
                parsed = try CoordinateCSV.parse(line)
            } catch let error as CoordinateCSV.LineError {
                rejected += 1
                reportError(InputError(path: displayName, line: number, reason: error.description).description)
                return
            }
            pending.append(Coordinate(latitude: parsed.latitude, longitude: parsed.longitude))
            if let rest = parsed.restOffset { rests.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[rest...])) }
            restEnds.append(rests.count)
            if pending.count == Self.block { try writePending() }
        }
        try writePending()
        try output.flush()
        return rejected > 0 ? .inputsRejected : .success
    }
}
