import AdminUnlocks
import Foundation

@_cdecl("au_logbook_merge")
public func au_logbook_merge(_ logbook: OpaquePointer?, _ other: UnsafePointer<CChar>?, _ key: UnsafePointer<UInt8>?, _ keyLength: Int,
                             _ options: UnsafePointer<CChar>?, _ report: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                             _ length: UnsafeMutablePointer<Int>?, _ error: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    abiCall(error) {
        let logbook = try LogbookHandle.from(logbook).logbook
        report?.pointee = nil
        let url = URL(fileURLWithPath: try storePath(try required(other, "other")))
        let otherKey = try LogbookRequest.key(key, keyLength)
        let reportOptions = try LogbookRequest.report(json: options.map { String(cString: $0) })
        let merged = try awaitBlocking { try await logbook.merge(contentsOf: url, key: otherKey, report: reportOptions) }
        if let report { try handOver(merged.json().renderedUTF8(), to: report, length: length) }
    }
}
