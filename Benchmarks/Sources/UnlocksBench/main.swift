import BoundaryBuild
import PlaceWalks
#if canImport(Glibc)
import Glibc
#endif

// unlocks-bench: the measurements behind BENCHMARKS.md. Run through Scripts/bench, which
// builds in release mode and writes the tables this prints into BENCHMARKS.md.
//
//   UnlocksBench datum [POINTS]     datum conversion throughput (default 4,000,000 points)
//   UnlocksBench tables [DIR]       table sizes and load times (default Data/regions)
//   UnlocksBench locate WHEEL [DIR] the table locator against GEOS prepared geometry on the source
//   UnlocksBench locate-points FILE [DIR]
//                                   the locator on a `lat,lon` file: all four levels, with margins, country only
//   UnlocksBench locate-points-profile FILE [DIR [MARGIN]]
//                                   the default locator alone on the file, ten passes (for perf)
//   UnlocksBench make-points KIND COUNT SEED OUT [DIR]
//                                   seeded point sets: china-box, world, china (inside), counties (around centres)
//   UnlocksBench readers [POINTS]   the GPX, CSV and FIT track readers alone (default 2,000,000 points)
//   UnlocksBench locate-profile [DIR]
//                                   the locator alone on real-place-like points (for profiling with perf)
//   UnlocksBench agreement WHEEL [DIR]
//                                   the locator's answers against the full-resolution source, by distance to its borders
//   UnlocksBench agreement-countries WHEEL [DIR [SPHERE [LATSTEP LONSTEP]]]
//                                   the world table's countries against the source countries: sphere, borders, coasts, grid scan
//   UnlocksBench agreement-international NE_WHEEL [DIR [SPHERE [LATSTEP LONSTEP]]]
//                                   the same for the international view (international.bin against Natural Earth)
//   UnlocksBench agreement-subdivisions NE_WHEEL ORANGE_WHEEL SUPERSET_WHEEL [DIR [SPHERE [LATSTEP LONSTEP]]]
//                                   subdivisions.bin against its source (Natural Earth admin-1), and both views' subdivision answers
//   UnlocksBench place-visits WHEEL [DIR]
//                                   a 10-minute walk at each of the world's populated places against the source country
//   UnlocksBench world WHEEL [COAST BUFFER OUT]
//                                   builds the world table alone, printing its progress
//   UnlocksBench country-source WHEEL [ISO3,...]
//                                   load times of the source reference's country level (default CHN,MNG,RUS)
//   UnlocksBench archives [DIR [MB]]
//                                   the intake's zip, gzip and tgz readers against libarchive (default /tmp/unlocks-archives, 100 MB)
//   UnlocksBench make-tracks DIR DAYS POINTS [--gpx-only] [--fit]
//                                   a synthetic archive for the classify bench (DIR/gpx, DIR/csv)
//   UnlocksBench store [CELLS [DIR]]
//                                   a logbook of CELLS explored cells (default 1,000,000): the viewport query,
//                                   recording in batches of 100, the store's size against the state file
//   UnlocksBench fuzz [COUNT [SEED [PART]]]
//                                   COUNT mutants (default 5,000) of every sample track file (or those whose
//                                   path contains PART) through the unlocks built beside this program;
//                                   failures kept in .build/fuzz-failures

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "store":
    try StoreBenchmark.run(Array(arguments.dropFirst()))
case "datum":
    let count = arguments.count > 1 ? Int(arguments[1]) ?? 4_000_000 : 4_000_000
    print(DatumBenchmark.run(points: count, repeats: 5).joined(separator: "\n"))
case "tables":
    print(try TableBenchmark.run(directory: arguments.count > 1 ? arguments[1] : "Data/regions").joined(separator: "\n"))
case "locate":
    print(try LocatorBenchmark.run(source: arguments[1], tables: arguments.count > 2 ? arguments[2] : "Data/regions", repeats: 3).joined(separator: "\n"))
case "locate-points":
    print(try LocatePointsBenchmark.run(file: arguments[1], tables: arguments.count > 2 ? arguments[2] : "Data/regions", repeats: 5).joined(separator: "\n"))
case "locate-points-profile":
    print(try LocatePointsBenchmark.profile(file: arguments[1], tables: arguments.count > 2 ? arguments[2] : "Data/regions",
                                            marginRadius: arguments.count > 3 ? Double(arguments[3]) ?? 300 : 300, passes: 10))
case "make-points":
    try LocatePointsBenchmark.makePoints(kind: arguments[1], count: Int(arguments[2]) ?? 1_000_000, seed: UInt64(arguments[3]) ?? 1,
                                         out: arguments[4], tables: arguments.count > 5 ? arguments[5] : "Data/regions")
case "locate-profile":
    print(try LocatorProfile.run(tables: arguments.count > 1 ? arguments[1] : "Data/regions", repeats: 5).joined(separator: "\n"))
case "agreement":
    print(try AgreementBenchmark.run(source: arguments[1], tables: arguments.count > 2 ? arguments[2] : "Data/regions").joined(separator: "\n"))
case "agreement-countries":
    print(try CountryAgreementBenchmark.run(source: arguments[1], tables: arguments.count > 2 ? arguments[2] : "Data/regions",
                                            sphere: arguments.count > 3 ? Int(arguments[3]) ?? 1_000_000 : 1_000_000,
                                            gridLatitudeStep: arguments.count > 4 ? Double(arguments[4]) ?? 0.01 : 0.01,
                                            gridLongitudeStep: arguments.count > 5 ? Double(arguments[5]) ?? 0.25 : 0.25).joined(separator: "\n"))
case "agreement-international":
    print(try CountryAgreementBenchmark.runInternational(source: arguments[1], tables: arguments.count > 2 ? arguments[2] : "Data/regions",
                                                         sphere: arguments.count > 3 ? Int(arguments[3]) ?? 1_000_000 : 1_000_000,
                                                         gridLatitudeStep: arguments.count > 4 ? Double(arguments[4]) ?? 0.01 : 0.01,
                                                         gridLongitudeStep: arguments.count > 5 ? Double(arguments[5]) ?? 0.25 : 0.25).joined(separator: "\n"))
case "agreement-subdivisions":
    // UnlocksBench agreement-subdivisions NE_WHEEL ORANGE_WHEEL SUPERSET_WHEEL [DIR [SPHERE [LATSTEP LONSTEP]]]
    print(try SubdivisionAgreementBenchmark.run(naturalEarth: arguments[1], orange: arguments[2], superset: arguments[3],
                                                tables: arguments.count > 4 ? arguments[4] : "Data/regions",
                                                sphere: arguments.count > 5 ? Int(arguments[5]) ?? 1_000_000 : 1_000_000,
                                                gridLatitudeStep: arguments.count > 6 ? Double(arguments[6]) ?? 0.01 : 0.01,
                                                gridLongitudeStep: arguments.count > 7 ? Double(arguments[7]) ?? 0.25 : 0.25).joined(separator: "\n"))
case "claimants":
    // UnlocksBench claimants WHEEL LAT LON...: the source countries containing each point.
    let catalog = try SourceCatalog(try SourceArchive(location: arguments[1]), levels: [.country], includeWorld: true)
    let reference = try SourceReference(catalog)
    for k in stride(from: 2, to: arguments.count - 1, by: 2) {
        let lat = Double(arguments[k])!, lon = Double(arguments[k + 1])!
        print("\(lat),\(lon): \(try reference.countryClaimants(longitude: lon, latitude: lat).joined(separator: " ")) → \(try reference.region(at: .country, longitude: lon, latitude: lat) ?? "none")")
    }
case "place-visits":
    print(try PlaceVisits.run(source: arguments[1], tables: arguments.count > 2 ? arguments[2] : "Data/regions").joined(separator: "\n"))
case "readers":
    print(try TrackReaderBenchmark.run(points: arguments.count > 1 ? Int(arguments[1]) ?? 2_000_000 : 2_000_000, repeats: 3).joined(separator: "\n"))
case "archives":
    print(try ArchiveBenchmark.run(folder: arguments.count > 1 ? arguments[1] : "/tmp/unlocks-archives",
                                   megabytes: arguments.count > 2 ? Int(arguments[2]) ?? 100 : 100, repeats: 5).joined(separator: "\n"))
case "make-tracks":
    let (gpx, csv) = try TrackArchiveGenerator.write(directory: arguments[1], days: Int(arguments[2]) ?? 10, pointsPerDay: Int(arguments[3]) ?? 20_000,
                                                     csv: !arguments.contains("--gpx-only"), fit: arguments.contains("--fit"))
    print("\(gpx) \(csv)")
case "fuzz":
    let failed = try FuzzBenchmark.run(count: arguments.count > 1 ? Int(arguments[1]) ?? 5_000 : 5_000,
                                       seed: arguments.count > 2 ? UInt64(arguments[2]) ?? 1 : UInt64(time(nil)),
                                       only: arguments.count > 3 ? arguments[3] : nil)
    exit(failed ? 1 : 0)
case "country-source":
    let subset = Set((arguments.count > 2 ? arguments[2] : "CHN,MNG,RUS").split(separator: ",").map(String.init))
    print(try CountrySourceProbe.run(arguments[1], subset: subset).joined(separator: "\n"))
case "world":
    try WorldBuildProbe.run(arguments[1], coastTolerance: arguments.count > 2 ? Double(arguments[2]) : nil,
                            buffer: arguments.count > 3 ? Double(arguments[3]) : nil, out: arguments.count > 4 ? arguments[4] : nil)
default:
    print("usage: UnlocksBench datum [POINTS] | tables [DIR] | locate WHEEL [DIR] | readers [POINTS] | locate-profile [DIR] | locate-points FILE [DIR] | make-points KIND COUNT SEED OUT [DIR] | agreement WHEEL [DIR] | agreement-countries WHEEL [DIR [SPHERE [LATSTEP LONSTEP]]] | agreement-international NE_WHEEL [DIR [SPHERE [LATSTEP LONSTEP]]] | place-visits WHEEL [DIR] | world WHEEL [COAST BUFFER OUT] | country-source WHEEL [ISO3,...] | make-tracks DIR DAYS POINTS [--gpx-only] [--fit] | fuzz [COUNT [SEED [PART]]]")
    exit(2)
}
