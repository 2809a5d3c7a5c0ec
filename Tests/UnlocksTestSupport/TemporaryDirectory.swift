import Foundation
import XCTest

extension XCTestCase {
    /// A new empty folder for this test, removed when the test ends (pass or fail). Its name
    /// starts with `label`, or the test's own name, so a folder a crashed run leaves says which
    /// test made it.
    public func temporaryDirectory(_ label: String? = nil) throws -> String {
        let testName = String(name.map { $0.isLetter || $0.isNumber ? $0 : "-" }).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        let path = NSTemporaryDirectory() + "\(label ?? testName)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }
}
