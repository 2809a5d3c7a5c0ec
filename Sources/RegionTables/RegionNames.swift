import CZlib

/// Country and subdivision names in a person's language, from Unicode CLDR (`cldr-names.tsv.gz`
/// beside the tables, written by `Scripts/fixtures/make-cldr-data` from Debian's
/// unicode-cldr-core): subdivisions by ISO 3166-2 code (`JP-13`), countries by the tables'
/// alpha-3 codes (`JPN`). A locale's names fall back to its parent locale's, then to English.
public struct RegionNames: Sendable {
    /// The file's name beside the region tables.
    public static let fileName = "cldr-names.tsv.gz"

    /// Names by locale (CLDR's spelling with hyphens: `de-CH`, `sr-Latn`), then by code.
    private let byLocale: [String: [String: String]]

    /// The locales the file names anything in, sorted.
    public var locales: [String] { byLocale.keys.sorted() }

    /// Reads the file (gzip, lines `LOCALE<TAB>CODE<TAB>NAME`).
    public init(contentsOf path: String) throws {
        let compressed = try Self.read(path)
        let text = try Self.gunzip(compressed, path: path)
        var byLocale: [String: [String: String]] = [:]
        var lineNumber = 0
        for line in text.split(separator: 0x0A, omittingEmptySubsequences: true) {
            lineNumber += 1
            let fields = line.split(separator: 0x09, maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, !fields[0].isEmpty, !fields[1].isEmpty, !fields[2].isEmpty else {
                throw TableError(path: path, reason: "line \(lineNumber): expected LOCALE<TAB>CODE<TAB>NAME")
            }
            byLocale[String(decoding: fields[0], as: UTF8.self), default: [:]][String(decoding: fields[1], as: UTF8.self)] = String(decoding: fields[2], as: UTF8.self)
        }
        guard byLocale["en"] != nil else { throw TableError(path: path, reason: "no English (en) names") }
        self.byLocale = byLocale
    }

    /// The names in `language` (a BCP 47 tag or a CLDR locale: `ja`, `de-CH`, `zh_Hant_TW`,
    /// `fr-FR`): the most specific locale the file has and its parents, then English.
    public func localized(_ language: String) -> LocalizedNames {
        LocalizedNames(chain: Self.chain(language).compactMap { byLocale[$0] }, english: byLocale["en"]!,
                       locale: Self.chain(language).first { byLocale[$0] != nil } ?? "en")
    }

    /// `zh_Hant_TW` → `zh-Hant-TW`, `zh-Hant`, `zh`; `en` last of all.
    static func chain(_ language: String) -> [String] {
        var parts = language.replacingOccurrences(of: "_", with: "-").split(separator: "-").map(String.init)
        guard !parts.isEmpty else { return ["en"] }
        parts[0] = parts[0].lowercased()
        var result: [String] = []
        while !parts.isEmpty {
            result.append(parts.joined(separator: "-"))
            parts.removeLast()
        }
        return result + ["en"]
    }

    private static func read(_ path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw TableError(path: path, reason: "cannot open") }
        defer { fclose(file) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes += chunk[0..<n]
            if n < chunk.count { break }
        }
        return bytes
    }

    /// The gzip member's contents (zlib, window bits 15 + 16: the gzip wrapper), at most 64 MiB.
    static func gunzip(_ input: [UInt8], path: String) throws -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw TableError(path: path, reason: "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 18)
        var input = input
        let status: Int32 = input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = UInt32(source.count)
            while true {
                let (status, produced): (Int32, Int) = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, buffer.count - Int(stream.avail_out))
                }
                output += chunk[0..<produced]
                if status == Z_STREAM_END { return status }
                guard status == Z_OK, output.count < 64 << 20 else { return status == Z_OK ? Z_MEM_ERROR : status }
                if produced == 0 && stream.avail_in == 0 { return Z_BUF_ERROR }
            }
        }
        guard status == Z_STREAM_END else { throw TableError(path: path, reason: "not a complete gzip file (zlib status \(status))") }
        return output
    }
}

/// Names in one language (``RegionNames/localized(_:)``).
public struct LocalizedNames: Sendable {
    /// The locale chain's tables, most specific first.
    let chain: [[String: String]]
    let english: [String: String]
    /// The most specific locale the file had for the language asked for (`en` when none).
    public let locale: String

    /// The name of the region with this code (ISO 3166-2 for a subdivision, the tables' alpha-3
    /// code for a country) in the language, else its English name; nil when CLDR names neither.
    public func name(of code: String) -> String? {
        for names in chain { if let name = names[code] { return name } }
        return english[code]
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
