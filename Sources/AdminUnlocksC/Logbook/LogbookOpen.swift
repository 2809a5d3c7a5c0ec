import AdminUnlocks
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@_cdecl("au_logbook_open")
public func au_logbook_open(_ tables: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ options: UnsafePointer<CChar>?,
                            _ key: UnsafePointer<UInt8>?, _ keyLength: Int,
                            _ out: UnsafeMutablePointer<OpaquePointer?>?, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        guard let out else { throw ArgumentError("logbook (the handle's place) is NULL") }
        out.pointee = nil
        let handle = try TablesHandle.from(tables)
        let given = try required(path, "path")
        let request = try LogbookRequest.Open(json: options.map { String(cString: $0) })
        let url = URL(fileURLWithPath: try storePath(given))
        let stored = try Logbook.storedRules(at: url, locator: handle.classifyLocator)
        if stored == nil, !request.create { throw LogbookError(.notALogbook, path: given, reason: "no such logbook") }
        let configuration = Logbook.Configuration(rules: try request.rules(over: stored), key: try LogbookRequest.key(key, keyLength),
                                                  readOnly: request.readOnly, createIfMissing: request.create)
        let logbook = try Logbook(at: url, locator: handle.classifyLocator, configuration: configuration)
        out.pointee = OpaquePointer(Unmanaged.passRetained(LogbookHandle(logbook: logbook, tables: handle)).toOpaque())
    }
}

/// The store's own path, as `unlocks classify --state` takes it: a link followed once; a folder,
/// a device or a FIFO refused before SQLite opens it (it would wait on a FIFO forever).
func storePath(_ path: String) throws -> String {
    var status = stat()
    guard stat(path, &status) == 0 else { return path }
    guard status.st_mode & S_IFMT == S_IFREG else {
        throw LogbookError(.notALogbook, path: path, reason: "not a regular file (a logbook is one SQLite file)")
    }
    guard let real = realpath(path, nil) else { return path }
    defer { free(real) }
    return String(cString: real)
}

@_cdecl("au_logbook_close")
public func au_logbook_close(_ logbook: OpaquePointer?) {
    guard let logbook else { return }
    Unmanaged<LogbookHandle>.fromOpaque(UnsafeRawPointer(logbook)).release()
}

@_cdecl("au_logbook_info")
public func au_logbook_info(_ logbook: OpaquePointer?, _ info: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                            _ length: UnsafeMutablePointer<Int>?, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        let handle = try LogbookHandle.from(logbook)
        guard let info else { throw ArgumentError("info (the result's place) is NULL") }
        info.pointee = nil
        let logbook = handle.logbook
        let (recording, inputs) = try awaitBlocking { await (logbook.recordingID, logbook.inputs.count) }
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        let value: JSONValue = .object([
            ("path", .string(logbook.url.path)),
            ("worldview", .string(logbook.worldview.rawValue)),
            ("isNew", .bool(logbook.isNew)),
            ("migratedFrom", text(logbook.migratedFrom?.path)),
            ("inputs", .number(Double(inputs))),
            ("recordingId", text(recording)),
        ])
        try handOver(value.compactRenderedUTF8(), to: info, length: length)
    }
}
