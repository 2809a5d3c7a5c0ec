import AdminUnlocks

@_cdecl("au_logbook_import")
public func au_logbook_import(_ logbook: OpaquePointer?, _ inputs: UnsafeRawPointer?, _ count: Int, _ options: UnsafePointer<CChar>?,
                              _ report: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ length: UnsafeMutablePointer<Int>?,
                              _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        let logbook = try LogbookHandle.from(logbook).logbook
        guard let report else { throw ArgumentError("report (the result's place) is NULL") }
        report.pointee = nil
        guard count >= 0, count == 0 || inputs != nil else { throw ArgumentError("inputs is NULL or count is negative") }
        let (importOptions, reportOptions) = try LogbookRequest.importing(json: options.map { String(cString: $0) })
        let sources = try (0..<count).map { k in try source(InputRecord(inputs!, k), index: k) }
        let result = try awaitBlocking { try await logbook.importSources(sources, options: importOptions, report: reportOptions) }
        try handOver(result.report.json().renderedUTF8(), to: report, length: length)
    }
}
