import TextFormats

/// Reads where and when a photo was taken: the EXIF of a JPEG (its `APP1` `Exif` segment) or of
/// a HEIF/HEIC image (the ISOBMFF item of type `Exif`, found through `meta`'s `iinf` and `iloc`).
/// A photo is a visit at a moment (docs/input-formats.md, "Photos"): one point after
/// ``TrackAnnotation/snapshot``, with its GPS position, altitude, time and
/// `GPSHPositioningError` as accuracy.
public enum PhotoReader {
    /// Bytes read at most, for a HEIF whose EXIF lies far into the file.
    public static let maximumBytes = 64 << 20

    public enum Kind: String, Sendable {
        case jpeg, heif
    }

    /// The photo's container, from its first bytes: a JPEG's `FF D8 FF`, or an ISOBMFF `ftyp`
    /// box naming a HEIF brand (`heic`, `heix`, `heim`, `heis`, `hevc`, `hevx`, `mif1`, `msf1`).
    public static func kind<Prefix: Collection<UInt8>>(of prefix: Prefix) -> Kind? {
        let bytes = Array(prefix.prefix(64))
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return .jpeg }
        guard bytes.count >= 16, Array(bytes[4..<8]) == Array("ftyp".utf8) else { return nil }
        let size = min(bytes.count, Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3]))
        let brands = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].map { Array($0.utf8) }
        var at = 8
        while at + 4 <= size {
            if at != 12, brands.contains(Array(bytes[at..<(at + 4)])) { return .heif }
            at += 4
        }
        return nil
    }

    /// What a photo held.
    public enum Outcome: Equatable, Sendable {
        /// A position, delivered (or unreadable, delivered as such).
        case located(Kind)
        /// No GPS position in its EXIF, or no EXIF at all.
        case noLocation(Kind)
    }

    /// Reads the photo in `source` into `sink`: one point when its EXIF has a GPS position.
    /// Throws when the container is damaged before its EXIF (the reason names the byte).
    public static func read<Source: ByteSource, Sink: TrackSink>(_ source: Source, path: String, timeZone: LocalTimeZone, into sink: inout Sink) throws -> Outcome {
        var window = ByteWindow(source: source, path: path)
        try window.ensure(64)
        guard let kind = kind(of: window.bytes) else {
            throw InputError(path: path, reason: "byte 0: not a JPEG or HEIF photo")
        }
        let tiff: ArraySlice<UInt8>?
        switch kind {
        case .jpeg: tiff = try jpegExif(&window)
        case .heif: tiff = try heifExif(&window)
        }
        guard let tiff else { return .noLocation(kind) }
        let facts: ExifGPS
        do {
            facts = try ExifGPS.parse(tiff)
        } catch {
            throw InputError(path: path, reason: "byte \(tiff.startIndex): \(error.reason)")
        }
        guard facts.hasPosition else { return .noLocation(kind) }
        sink.annotate(.snapshot)
        if let problem = facts.unusablePosition {
            sink.unreadablePoint(InputError(path: path, reason: "byte \(tiff.startIndex): \(problem)"))
        } else if let latitude = facts.latitude, let longitude = facts.longitude {
            sink.point(TrackPoint(latitude: latitude, longitude: longitude, time: facts.time(unzonedIn: timeZone),
                                  accuracy: facts.horizontalError, elevation: facts.altitude))
        }
        return .located(kind)
    }

    /// The TIFF data of the first `APP1` segment that starts `Exif\0\0`, or nil when the
    /// segments before the image data (`SOS`) hold none.
    static func jpegExif<Source: ByteSource>(_ window: inout ByteWindow<Source>) throws -> ArraySlice<UInt8>? {
        var at = 2
        while true {
            try window.ensure(at + 4)
            guard at + 4 <= window.bytes.count else { return nil }
            guard window.bytes[at] == 0xFF else { throw window.problem("byte \(at): no JPEG marker (FF) where a segment starts") }
            let marker = window.bytes[at + 1]
            if marker == 0xFF { at += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { return nil }  // start of scan, end of image
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { at += 2; continue }
            let length = Int(window.bytes[at + 2]) << 8 | Int(window.bytes[at + 3])
            guard length >= 2 else { throw window.problem("byte \(at + 2): JPEG segment length \(length)") }
            try window.ensure(at + 2 + length)
            guard at + 2 + length <= window.bytes.count else { throw window.problem("byte \(at): JPEG segment cut short", kind: .truncated) }
            if marker == 0xE1, length >= 8, Array(window.bytes[(at + 4)..<(at + 10)]) == [0x45, 0x78, 0x69, 0x66, 0, 0] {
                return window.bytes[(at + 10)..<(at + 2 + length)]
            }
            at += 2 + length
        }
    }

    /// The TIFF data of the HEIF item of type `Exif` (after its 4-byte offset to the TIFF
    /// header), or nil when the file has none.
    static func heifExif<Source: ByteSource>(_ window: inout ByteWindow<Source>) throws -> ArraySlice<UInt8>? {
        // Top-level boxes up to `meta`.
        var at = 0
        var meta: Range<Int>?
        while meta == nil {
            try window.ensure(at + 16)
            guard let box = try window.box(at: at) else { return nil }
            if box.type == "meta" {
                try window.ensure(box.end)
                guard box.end <= window.bytes.count else { throw window.problem("byte \(at): HEIF meta box cut short", kind: .truncated) }
                meta = (box.contentStart + 4)..<box.end  // a full box: version and flags first
            }
            at = box.end
        }
        guard let meta else { return nil }
        var exifItem: UInt32?
        var locations: [UInt32: (method: Int, extents: [(offset: Int, length: Int)])] = [:]
        var idat: Range<Int>?
        var child = meta.lowerBound
        while child < meta.upperBound, let box = try window.box(at: child, within: meta.upperBound) {
            switch box.type {
            case "iinf": exifItem = try window.exifItem(in: box)
            case "iloc": locations = try window.itemLocations(in: box)
            case "idat": idat = box.contentStart..<box.end
            default: break
            }
            child = box.end
        }
        guard let item = exifItem else { return nil }
        guard let location = locations[item], location.extents.count == 1, let extent = location.extents.first else {
            throw window.problem("HEIF Exif item \(item) has no single extent in iloc")
        }
        var start = extent.offset
        if location.method == 1 {
            guard let idat else { throw window.problem("HEIF Exif item \(item) is in an idat box the meta box lacks") }
            start += idat.lowerBound
        } else if location.method != 0 {
            throw window.problem("HEIF Exif item \(item): construction method \(location.method) is not read", kind: .unsupported)
        }
        let end = start + extent.length
        guard extent.length >= 4, end <= maximumBytes else { throw window.problem("byte \(start): HEIF Exif item of \(extent.length) bytes") }
        try window.ensure(end)
        guard end <= window.bytes.count else { throw window.problem("byte \(start): HEIF Exif item beyond the file's end", kind: .truncated) }
        let skip = Int(window.bytes[start]) << 24 | Int(window.bytes[start + 1]) << 16 | Int(window.bytes[start + 2]) << 8 | Int(window.bytes[start + 3])
        guard skip <= extent.length - 4 else { throw window.problem("byte \(start): HEIF Exif header offset \(skip) beyond the item") }
        return window.bytes[(start + 4 + skip)..<end]
    }
}

/// The first bytes of a photo, read from its source as far as needed (at most
/// ``PhotoReader/maximumBytes``), with the ISOBMFF box reads.
struct ByteWindow<Source: ByteSource> {
    var source: Source
    let path: String
    var bytes: [UInt8] = []
    var ended = false

    init(source: Source, path: String) {
        self.source = source
        self.path = path
    }

    /// Reads until `count` bytes are held or the source ends.
    mutating func ensure(_ count: Int) throws {
        guard count > bytes.count, !ended else { return }
        guard count <= PhotoReader.maximumBytes else {
            throw problem("the photo's metadata lies beyond its first \(PhotoReader.maximumBytes) bytes", kind: .decompressionBomb)
        }
        var chunk = [UInt8](repeating: 0, count: max(65536, count - bytes.count))
        while bytes.count < count {
            let n = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { ended = true; return }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }

    func problem(_ reason: String, kind: InputError.Kind = .malformed) -> InputError {
        InputError(path: path, reason: reason, kind: kind)
    }

    struct Box {
        let type: String
        let contentStart: Int
        let end: Int
    }

    func u32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }

    /// The box at `at` (within `limit` when given), or nil at the end of the data.
    func box(at: Int, within limit: Int? = nil) throws -> Box? {
        guard at + 8 <= (limit ?? bytes.count) else { return nil }
        var size = u32(at)
        var header = 8
        if size == 1 {
            guard at + 16 <= bytes.count else { throw problem("byte \(at): HEIF box cut short", kind: .truncated) }
            let high = u32(at + 8), low = u32(at + 12)
            guard high < 1 << 20 else { throw problem("byte \(at): HEIF box of \(high)·2³² bytes") }
            size = high << 32 | low
            header = 16
        } else if size == 0 {
            size = (limit ?? Int.max / 2) - at
        }
        guard size >= header else { throw problem("byte \(at): HEIF box size \(size)") }
        let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
        let end = at + size
        if let limit, end > limit { throw problem("byte \(at): HEIF box '\(type)' runs past its parent") }
        return Box(type: type, contentStart: at + header, end: end)
    }

    /// The item ID of the first `infe` (version 2 or 3) of type `Exif` in an `iinf` box.
    func exifItem(in iinf: Box) throws -> UInt32? {
        guard iinf.contentStart + 4 <= iinf.end else { return nil }
        let version = bytes[iinf.contentStart]
        var at = iinf.contentStart + 4 + (version == 0 ? 2 : 4)
        while at < iinf.end, let infe = try box(at: at, within: iinf.end) {
            defer { at = infe.end }
            guard infe.type == "infe", infe.contentStart + 4 <= infe.end else { continue }
            let v = bytes[infe.contentStart]
            let fields = infe.contentStart + 4
            if v == 2, fields + 8 <= infe.end, String(decoding: bytes[(fields + 4)..<(fields + 8)], as: UTF8.self) == "Exif" {
                return UInt32(bytes[fields]) << 8 | UInt32(bytes[fields + 1])
            }
            if v == 3, fields + 10 <= infe.end, String(decoding: bytes[(fields + 6)..<(fields + 10)], as: UTF8.self) == "Exif" {
                return UInt32(u32(fields))
            }
        }
        return nil
    }

    /// The items of an `iloc` box: construction method and extents (absolute offsets for method 0).
    func itemLocations(in iloc: Box) throws -> [UInt32: (method: Int, extents: [(offset: Int, length: Int)])] {
        var at = iloc.contentStart
        func need(_ n: Int) throws {
            guard at + n <= iloc.end else { throw problem("byte \(at): HEIF iloc box cut short") }
        }
        func read(_ size: Int) throws -> Int {
            guard size > 0 else { return 0 }
            try need(size)
            var value = 0
            for i in 0..<size { value = value << 8 | Int(bytes[at + i]) }
            guard value >= 0, value < 1 << 48 else { throw problem("byte \(at): HEIF iloc value out of range") }
            at += size
            return value
        }
        let version = try read(1)
        at += 3
        let sizes = try read(1), moreSizes = try read(1)
        let offsetSize = sizes >> 4, lengthSize = sizes & 15, baseSize = moreSizes >> 4
        let indexSize = version == 1 || version == 2 ? moreSizes & 15 : 0
        for size in [offsetSize, lengthSize, baseSize, indexSize] where ![0, 4, 8].contains(size) {
            throw problem("byte \(iloc.contentStart): HEIF iloc field size \(size)")
        }
        let count = try read(version < 2 ? 2 : 4)
        var items: [UInt32: (method: Int, extents: [(offset: Int, length: Int)])] = [:]
        for _ in 0..<count {
            let item = try read(version < 2 ? 2 : 4)
            let method = version == 1 || version == 2 ? try read(2) & 15 : 0
            _ = try read(2)  // data reference index
            let base = try read(baseSize)
            let extentCount = try read(2)
            var extents: [(offset: Int, length: Int)] = []
            for _ in 0..<extentCount {
                _ = try read(indexSize)
                let offset = try read(offsetSize), length = try read(lengthSize)
                extents.append((base + offset, length))
            }
            if items[UInt32(item)] == nil { items[UInt32(item)] = (method, extents) }
        }
        return items
    }
}
