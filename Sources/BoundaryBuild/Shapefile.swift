import TextFormats

/// An ESRI shapefile's polygons (`.shp`) and attributes (`.dbf`), read from memory at build time
/// (the international table's Natural Earth source). Only what that source uses: polygon records
/// (type 5) and null shapes; character, numeric and other fields read as trimmed UTF-8 text.
/// Every error names the file and the byte offset.
struct Shapefile {
    /// One record: its polygons (rings of lon/lat; the first ring of each is its exterior) and
    /// its attributes by field name.
    struct Record {
        var polygons: [PolygonRings]
        var attributes: [String: String]
    }

    let records: [Record]

    init(shp: [UInt8], dbf: [UInt8], name: String) throws {
        let shapes = try Self.polygons(shp, name: name + ".shp")
        let table = try Self.attributes(dbf, name: name + ".dbf")
        guard shapes.count == table.count else {
            throw SourceError(path: name, reason: "\(shapes.count) shapes in the .shp but \(table.count) records in the .dbf")
        }
        records = zip(shapes, table).map { Record(polygons: $0, attributes: $1) }
    }

    private static func int32(_ bytes: [UInt8], _ offset: Int, bigEndian: Bool) -> Int32 {
        let b = bytes[offset..<offset + 4].map(UInt32.init)
        return Int32(bitPattern: bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0])
    }

    private static func double(_ bytes: [UInt8], _ offset: Int) -> Double {
        var bits: UInt64 = 0
        for k in 0..<8 { bits |= UInt64(bytes[offset + k]) << (8 * UInt64(k)) }
        return Double(bitPattern: bits)
    }

    /// The polygons of every record of a `.shp` file, in record order (a null shape: none).
    static func polygons(_ shp: [UInt8], name: String) throws -> [[PolygonRings]] {
        func fail(_ offset: Int, _ reason: String) -> SourceError { SourceError(path: "\(name) byte \(offset)", reason: reason) }
        guard shp.count >= 100, int32(shp, 0, bigEndian: true) == 9994 else { throw fail(0, "not a shapefile (no file code 9994)") }
        guard int32(shp, 32, bigEndian: false) == 5 else { throw fail(32, "shape type \(int32(shp, 32, bigEndian: false)), expected 5 (polygon)") }
        let length = Int(int32(shp, 24, bigEndian: true)) * 2
        guard length == shp.count else { throw fail(24, "the header gives \(length) bytes, the file has \(shp.count)") }
        var result: [[PolygonRings]] = []
        var offset = 100
        while offset < shp.count {
            guard offset + 12 <= shp.count else { throw fail(offset, "truncated record header") }
            let content = Int(int32(shp, offset + 4, bigEndian: true)) * 2
            let start = offset + 8, end = start + content
            guard content >= 4, end <= shp.count else { throw fail(offset, "record of \(content) bytes runs past the end") }
            let type = int32(shp, start, bigEndian: false)
            if type == 0 {
                result.append([])
            } else if type == 5 {
                guard content >= 44 else { throw fail(start, "polygon record of \(content) bytes") }
                let parts = Int(int32(shp, start + 36, bigEndian: false)), points = Int(int32(shp, start + 40, bigEndian: false))
                let pointsAt = start + 44 + 4 * parts
                guard parts > 0, points >= 0, parts <= points, pointsAt + 16 * points == end else {
                    throw fail(start, "polygon with \(parts) parts and \(points) points does not fit its \(content) bytes")
                }
                let firsts = (0..<parts).map { Int(int32(shp, start + 44 + 4 * $0, bigEndian: false)) }
                guard firsts[0] == 0, zip(firsts, firsts.dropFirst()).allSatisfy({ $0 < $1 }), firsts.last! < points else {
                    throw fail(start + 44, "part offsets \(firsts.prefix(5)) are not increasing from 0")
                }
                var rings: [[Position]] = []
                for (k, first) in firsts.enumerated() {
                    let last = k + 1 < parts ? firsts[k + 1] : points
                    let ring = (first..<last).map { Position(x: double(shp, pointsAt + 16 * $0), y: double(shp, pointsAt + 16 * $0 + 8)) }
                    guard ring.allSatisfy({ $0.x.isFinite && $0.y.isFinite && abs($0.x) <= 180 && abs($0.y) <= 90 }) else {
                        throw fail(pointsAt + 16 * first, "a vertex of ring \(k) is not a longitude and latitude")
                    }
                    if ring.count >= 4 { rings.append(ring) }
                }
                result.append(Self.assemble(rings))
            } else {
                throw fail(start, "shape type \(type) in a polygon file")
            }
            offset = end
        }
        return result
    }

    /// Twice the signed area of a ring (positive: counter-clockwise).
    static func doubledArea(_ ring: [Position]) -> Double {
        zip(ring, ring.dropFirst()).reduce(0) { $0 + ($1.0.x * $1.1.y - $1.1.x * $1.0.y) }
    }

    static func contains(_ ring: [Position], _ p: Position) -> Bool {
        var inside = false
        for (a, b) in zip(ring, ring.dropFirst()) where (a.y > p.y) != (b.y > p.y) {
            if p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) { inside.toggle() }
        }
        return inside
    }

    /// Polygons from a record's rings: clockwise rings are exteriors, counter-clockwise ones holes
    /// of the smallest exterior holding their first vertex (the shapefile rule).
    static func assemble(_ rings: [[Position]]) -> [PolygonRings] {
        let areas = rings.map(doubledArea)
        let exteriors = rings.indices.filter { areas[$0] < 0 }
        var holes: [Int: [[Position]]] = [:]
        for k in rings.indices where areas[k] > 0 {
            let owner = exteriors.filter { contains(rings[$0], rings[k][0]) }.min { abs(areas[$0]) < abs(areas[$1]) }
            // A hole outside every exterior (not in Natural Earth) is kept as a polygon of its own.
            holes[owner ?? -1 - k, default: []].append(rings[k])
        }
        var polygons = exteriors.map { PolygonRings(rings: [rings[$0]] + (holes[$0] ?? [])) }
        for k in rings.indices where areas[k] > 0 && holes[-1 - k] != nil { polygons.append(PolygonRings(rings: [rings[k]])) }
        return polygons
    }

    /// The records of a `.dbf` file: every field as trimmed text (UTF-8), deleted records left out
    /// (as empty dictionaries, so that records still pair with shapes by position).
    static func attributes(_ dbf: [UInt8], name: String) throws -> [[String: String]] {
        func fail(_ offset: Int, _ reason: String) -> SourceError { SourceError(path: "\(name) byte \(offset)", reason: reason) }
        guard dbf.count >= 32 else { throw fail(0, "not a dBASE file (\(dbf.count) bytes)") }
        let count = Int(UInt32(dbf[4]) | UInt32(dbf[5]) << 8 | UInt32(dbf[6]) << 16 | UInt32(dbf[7]) << 24)
        let headerLength = Int(dbf[8]) | Int(dbf[9]) << 8, recordLength = Int(dbf[10]) | Int(dbf[11]) << 8
        guard headerLength <= dbf.count, recordLength > 0, headerLength + count * recordLength <= dbf.count else {
            throw fail(4, "\(count) records of \(recordLength) bytes after a \(headerLength)-byte header do not fit \(dbf.count) bytes")
        }
        var fields: [(name: String, width: Int)] = []
        var at = 32
        while at < headerLength - 1, dbf[at] != 0x0D {
            guard at + 32 <= headerLength else { throw fail(at, "field descriptor past the header") }
            let raw = dbf[at..<at + 11].prefix { $0 != 0 }
            guard let fieldName = String(validating: raw, as: UTF8.self) else { throw fail(at, "field name is not text") }
            fields.append((fieldName, Int(dbf[at + 16])))
            at += 32
        }
        guard fields.reduce(1, { $0 + $1.width }) == recordLength else {
            throw fail(10, "fields of \(fields.reduce(1) { $0 + $1.width }) bytes in records of \(recordLength)")
        }
        return try (0..<count).map { r in
            let start = headerLength + r * recordLength
            guard dbf[start] != 0x2A else { return [:] }  // '*': deleted
            var values: [String: String] = [:]
            var position = start + 1
            for field in fields {
                guard let text = String(validating: dbf[position..<position + field.width], as: UTF8.self) else {
                    throw fail(position, "field \(field.name) of record \(r) is not UTF-8")
                }
                values[field.name] = text.trimmingCharacters(in: " \0")
                position += field.width
            }
            return values
        }
    }
}

extension String {
    /// The string without leading and trailing characters from `set`.
    fileprivate func trimmingCharacters(in set: String) -> String {
        let drop = Set(set)
        var scalars = Substring(self)
        while let first = scalars.first, drop.contains(first) { scalars = scalars.dropFirst() }
        while let last = scalars.last, drop.contains(last) { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
