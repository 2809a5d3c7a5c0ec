import AdminUnlocks

@_cdecl("au_logbook_forget")
public func au_logbook_forget(_ logbook: OpaquePointer?, _ paths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ options: UnsafePointer<CChar>?,
                              _ result: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int>?,
                              _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    forgetCall(logbook, paths, count, options, result, length, error, undo: false)
}

@_cdecl("au_logbook_unforget")
public func au_logbook_unforget(_ logbook: OpaquePointer?, _ paths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ options: UnsafePointer<CChar>?,
                                _ result: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int>?,
                                _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    forgetCall(logbook, paths, count, options, result, length, error, undo: true)
}

/// A forget, or its undo, of inputs named by path (as the report lists them, or files and
/// folders on disk whose contents inputs have), as `unlocks forget` does.
private func forgetCall(_ logbook: OpaquePointer?, _ paths: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ options: UnsafePointer<CChar>?,
                        _ result: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int>?,
                        _ error: UnsafeMutablePointer<OpaquePointer?>?, undo: Bool) -> Int32 {
    abiCall(error) {
        let logbook = try LogbookHandle.from(logbook).logbook
        result?.pointee = nil
        guard count >= 1, let paths else { throw ArgumentError("paths is NULL or empty: name at least one input") }
        let targets = try (0..<count).map { k in ForgetTarget.path(try required(paths[k], "path \(k)")) }
        let reportOptions = try LogbookRequest.report(json: options.map { String(cString: $0) })
        let done = try awaitBlocking {
            undo ? try await logbook.unforget(targets, report: reportOptions) : try await logbook.forget(targets, report: reportOptions)
        }
        guard let result else { return }
        let value: JSONValue = .object([
            (undo ? "restored" : "forgotten", .array(done.inputs.map { .string($0.path) })),
            ("duplicates", .array(done.duplicates.map { .string($0.path) })),
            ("report", done.report.json()),
        ])
        try handOver(value.renderedUTF8(), to: result, length: length)
    }
}
