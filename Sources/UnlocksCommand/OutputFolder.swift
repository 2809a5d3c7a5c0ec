import Intake
import Foundation

/// A folder the command writes its files into (audit, map, the tables' audit).
enum OutputFolder {
    /// Creates `directory` if needed.
    static func prepare(_ directory: String) throws {
        _ = try AtomicFile.target(of: directory)  // a link to nothing: refused with its target and why
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw AtomicFile.WriteError(path: directory, reason: "cannot create the folder: \((error as NSError).localizedFailureReason ?? error.localizedDescription)")
            }
        } else if !isDirectory.boolValue {
            throw AtomicFile.WriteError(path: directory, reason: "is not a folder")
        }
    }

    /// Creates `directory` if needed and writes each file into it atomically.
    static func write(to directory: String, _ files: [(name: String, bytes: [UInt8])]) throws {
        try prepare(directory)
        for file in files { try AtomicFile.write(file.bytes, to: directory + "/" + file.name) }
    }
}
