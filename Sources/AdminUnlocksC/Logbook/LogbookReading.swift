import AdminUnlocks
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@_cdecl("au_logbook_report")
public func au_logbook_report(_ logbook: OpaquePointer?, _ options: UnsafePointer<CChar>?,
                              _ report: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int>?,
                              _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        let logbook = try LogbookHandle.from(logbook).logbook
        guard let report else { throw ArgumentError("report (the result's place) is NULL") }
        report.pointee = nil
        let reportOptions = try LogbookRequest.report(json: options.map { String(cString: $0) })
        let made = try awaitBlocking { try await logbook.report(reportOptions) }
        try handOver(made.json().renderedUTF8(), to: report, length: length)
    }
}

@_cdecl("au_logbook_changes")
public func au_logbook_changes(_ logbook: OpaquePointer?, _ sinceMilliseconds: Int64, _ options: UnsafePointer<CChar>?,
                               _ changes: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int>?,
                               _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        let logbook = try LogbookHandle.from(logbook).logbook
        guard let changes else { throw ArgumentError("changes (the result's place) is NULL") }
        changes.pointee = nil
        let reportOptions = try LogbookRequest.report(json: options.map { String(cString: $0) })
        let moment = Date(timeIntervalSince1970: Double(sinceMilliseconds) / 1000)
        let found = try awaitBlocking { try await logbook.changes(since: moment, reportOptions) }
        try handOver(found.json().renderedUTF8(), to: changes, length: length)
    }
}

@_cdecl("au_logbook_cells")
public func au_logbook_cells(_ logbook: OpaquePointer?, _ south: Double, _ west: Double, _ north: Double, _ east: Double,
                             _ count: UnsafeMutablePointer<Int>?, _ keys: UnsafeMutablePointer<UnsafeMutablePointer<Int64>?>?,
                             _ bounds: UnsafeMutablePointer<UnsafeMutablePointer<Double>?>?,
                             _ levels: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                             _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        let logbook = try LogbookHandle.from(logbook).logbook
        guard let count, let keys, let bounds, let levels else { throw ArgumentError("count, keys, bounds or levels (the results' places) is NULL") }
        (count.pointee, keys.pointee, bounds.pointee, levels.pointee) = (0, nil, nil, nil)
        guard [south, west, north, east].allSatisfy(\.isFinite), south <= north, abs(south) <= 90, abs(north) <= 90,
              abs(west) <= 180, abs(east) <= 180 else {
            throw ArgumentError("viewport south \(south), west \(west), north \(north), east \(east): expected degrees with south ≤ north (west > east crosses the antimeridian)")
        }
        let box = GeoBox(south: south, west: west, north: north, east: east)
        let cells = try awaitBlocking { try await logbook.cells(in: box) }
        let n = cells.count
        // malloc(0) may be NULL: every array has room for one, so that NULL means only "not given".
        let keyMemory = malloc(max(n, 1) * 8), boundMemory = malloc(max(n, 1) * 32), levelMemory = malloc(max(n, 1))
        guard let keyMemory, let boundMemory, let levelMemory else {
            free(keyMemory); free(boundMemory); free(levelMemory)
            throw ArgumentError("out of memory for \(n) cells")
        }
        let keyArray = keyMemory.assumingMemoryBound(to: Int64.self), boundArray = boundMemory.assumingMemoryBound(to: Double.self)
        let levelArray = levelMemory.assumingMemoryBound(to: UInt8.self)
        for (k, cell) in cells.enumerated() {
            keyArray[k] = cell.key
            boundArray[4 * k] = cell.bounds.south
            boundArray[4 * k + 1] = cell.bounds.west
            boundArray[4 * k + 2] = cell.bounds.north
            boundArray[4 * k + 3] = cell.bounds.east
            levelArray[k] = UInt8(cell.familiarity.rawValue)
        }
        (count.pointee, keys.pointee, bounds.pointee, levels.pointee) = (n, keyArray, boundArray, levelArray)
    }
}

@_cdecl("au_buffer_free")
public func au_buffer_free(_ buffer: UnsafeMutableRawPointer?) {
    free(buffer)
}
