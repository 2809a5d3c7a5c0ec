import TextFormats

/// What a table's manifest states about its accuracy, for the checks that hold the table to it
/// (the agreement harness, WorldAgreementTests, the benchmarks).
public enum TableManifest {
    /// The largest `maximumDeviationMetres` over `table`'s levels in the manifest at `path`.
    public static func maximumDeviation(manifest path: String, table: String) throws -> Double {
        let json = try JSONParser.parse(try SourceArchive.readFile(path))
        guard let entry = json["tables"]?.arrayValue?.first(where: { $0["file"]?.stringValue == table }),
              let deviations = entry["levels"]?.arrayValue?.compactMap({ $0["maximumDeviationMetres"]?.numberValue }), !deviations.isEmpty else {
            throw SourceError(path: path, reason: "no maximumDeviationMetres for \(table)")
        }
        return deviations.max()!
    }
}
