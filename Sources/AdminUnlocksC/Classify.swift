import AdminUnlocks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@_cdecl("au_classify")
public func au_classify(_ tables: OpaquePointer?, _ inputs: UnsafeRawPointer?, _ count: Int, _ options: UnsafePointer<CChar>?,
                        _ report: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int>?,
                        _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        let handle = try TablesHandle.from(tables)
        guard let report else { throw ArgumentError("report (the result's place) is NULL") }
        report.pointee = nil
        guard count >= 0, count == 0 || inputs != nil else { throw ArgumentError("inputs is NULL or count is negative") }
        let request = try ClassifyRequest(json: options.map { String(cString: $0) })
        let sources = try (0..<count).map { k in try source(InputRecord(inputs!, k), index: k) }
        try handOver(try classify(sources, request: request, locator: handle.classifyLocator), to: report, length: length)
    }
}

/// The `index`th `au_input` of an array (include/adminunlocks.h: path, name, bytes, length; four
/// words, C's layout), read field by field (a Swift struct cannot cross `@_cdecl`).
struct InputRecord {
    var path: UnsafePointer<CChar>?
    var name: UnsafePointer<CChar>?
    var bytes: UnsafePointer<UInt8>?
    var length: Int

    init(_ array: UnsafeRawPointer, _ index: Int) {
        let word = MemoryLayout<Int>.stride, record = array + index * 4 * word
        path = record.load(as: UnsafePointer<CChar>?.self)
        name = record.load(fromByteOffset: word, as: UnsafePointer<CChar>?.self)
        bytes = record.load(fromByteOffset: 2 * word, as: UnsafePointer<UInt8>?.self)
        length = record.load(fromByteOffset: 3 * word, as: Int.self)
    }
}

/// The intake's source for one `au_input`.
func source(_ input: InputRecord, index: Int) throws -> IntakeSource {
    if let path = input.path {
        guard input.bytes == nil, input.length == 0 else { throw ArgumentError("input \(index): both a path and bytes") }
        return .path(bytes: Array(UnsafeBufferPointer(start: UnsafeRawPointer(path).assumingMemoryBound(to: UInt8.self), count: strlen(path))))
    }
    guard let name = input.name else { throw ArgumentError("input \(index): bytes without a name (the name's extension decides the format)") }
    guard input.length >= 0, input.bytes != nil || input.length == 0 else { throw ArgumentError("input \(index): bytes is NULL") }
    let bytes = input.length == 0 ? [] : Array(UnsafeBufferPointer(start: input.bytes, count: input.length))
    return .memory(name: String(cString: name), bytes: bytes)
}

/// One person's inputs through the intake into the report's JSON: what `unlocks classify
/// --format json` writes, without the final newline.
func classify(_ sources: [IntakeSource], request: ClassifyRequest, locator: RegionLocator) throws -> [UInt8] {
    var run = IntakeRun(locator: locator, options: request.intake)
    try run.take(sources)
    var outcome = run.finish()
    var report = try ClassifyReport(ledger: outcome.ledger, tables: locator.tables, options: request.intake.classify,
                                    lenient: request.lenient, includePassedThrough: request.includePassedThrough)
    if let badges = request.badges { report.badges = badges.progress(in: report, reported: &outcome.ledger.reportedBadgePercents) }
    return report.json().renderedUTF8()
}
