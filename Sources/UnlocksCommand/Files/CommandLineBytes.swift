import Foundation
import Intake
import Tracks

/// The process's command line as the system gave it: arguments reach Swift as text, which loses
/// the bytes of a name that is not UTF-8 (a Latin-1 `café.csv`). Such an argument is shown
/// escaped (``EscapedName``) and found by its bytes (``source(_:)``).
enum CommandLineBytes {
    static let raw = (0..<Int(CommandLine.argc)).map { index in
        Array(UnsafeBufferPointer(start: CommandLine.unsafeArgv[index], count: strlen(CommandLine.unsafeArgv[index]!))).map(UInt8.init(bitPattern:))
    }
    /// The arguments, each not UTF-8 escaped.
    static let text = raw.map { isUTF8($0) ? String(decoding: $0, as: UTF8.self) : EscapedName.string(from: $0) }
    static let bytes = Dictionary(zip(text, raw).filter { !isUTF8($0.1) }.map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })

    /// The file or folder an argument of ``text`` names: by its bytes when it is not UTF-8.
    static func source(_ argument: String) -> IntakeSource {
        bytes[argument].map { .path(bytes: $0) } ?? .path(argument)
    }

    static func isUTF8(_ bytes: [UInt8]) -> Bool { Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes }
}
