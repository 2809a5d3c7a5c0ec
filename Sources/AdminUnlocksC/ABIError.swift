import Intake
import LogbookStore
import RegionTables
import TextFormats
import Unlocks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The kinds of error the C ABI reports (`au_code` in include/adminunlocks.h): the library's
/// error kinds, so that a caller (the Python package's exceptions) switches on a number, never on
/// a message's text.
enum ABICode: Int32 {
    case ok = 0
    case argument = 1
    case table = 2
    case coordinate = 3
    case notFound = 4
    case cannotList = 5
    case badges = 6
    case overflow = 7
    // A logbook's errors (LogbookError.Kind), one code each; its overflow is `overflow`.
    case notALogbook = 10
    case newerFormat = 11
    case unmigratableState = 12
    case damaged = 13
    case rulesDiffer = 14
    case worldviewDiffers = 15
    case unknownRegion = 16
    case signatureMismatch = 17
    case keyRequired = 18
    case notSigned = 19
    case nothingMatched = 20
    case mergeConflict = 21
    case recording = 22
    case storage = 23
    case invalidExclusion = 24
    case unreadableInputs = 25
    case internalError = 99

    /// The code of a logbook's error kind.
    init(_ kind: LogbookError.Kind) {
        switch kind {
        case .notALogbook: self = .notALogbook
        case .newerFormat: self = .newerFormat
        case .unmigratableState: self = .unmigratableState
        case .damaged: self = .damaged
        case .rulesDiffer: self = .rulesDiffer
        case .worldviewDiffers: self = .worldviewDiffers
        case .unknownRegion: self = .unknownRegion
        case .signatureMismatch: self = .signatureMismatch
        case .keyRequired: self = .keyRequired
        case .notSigned: self = .notSigned
        case .nothingMatched: self = .nothingMatched
        case .mergeConflict: self = .mergeConflict
        case .recording: self = .recording
        case .overflow: self = .overflow
        case .storage: self = .storage
        case .invalidExclusion: self = .invalidExclusion
        case .unreadableInputs: self = .unreadableInputs
        }
    }
}

/// An `au_error`: a code and a message, owned by the caller until `au_error_free`.
final class ABIError {
    let code: ABICode
    let message: UnsafeMutablePointer<CChar>

    init(code: ABICode, message: String) {
        self.code = code
        self.message = strdup(message)!
    }

    deinit { free(message) }
}

/// A bad argument to a C function (`AU_ERROR_ARGUMENT`), with what was expected.
struct ArgumentError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension ABICode {
    /// The code and message of an error the library threw.
    static func of(_ error: any Error) -> (ABICode, String) {
        switch error {
        case let error as ArgumentError: return (.argument, error.description)
        case let error as TableError: return (.table, error.description)
        case let error as PointError: return (.coordinate, error.description)
        case let error as LocatorError: return (.coordinate, error.description)
        case let error as IntakeError:
            switch error.kind {
            case .notFound: return (.notFound, error.description)
            case .cannotList: return (.cannotList, error.description)
            }
        case let error as BadgeCatalogError: return (.badges, error.description)
        case let error as LedgerOverflow: return (.overflow, error.description)
        case let error as LogbookError: return (ABICode(error.kind), error.description)
        case let error as DatumRules.Problem: return (.argument, error.message)
        case let error as JSONError: return (.argument, "options: not JSON: \(error.description)")
        default: return (.internalError, String(describing: error))
        }
    }
}

/// Runs `body`, turning what it throws into a code and, when `error` is not NULL, an `au_error`.
func abiCall(_ error: UnsafeMutablePointer<OpaquePointer?>?, _ body: () throws -> Void) -> Int32 {
    error?.pointee = nil
    do {
        try body()
        return ABICode.ok.rawValue
    } catch let thrown {
        let (code, message) = ABICode.of(thrown)
        error?.pointee = OpaquePointer(Unmanaged.passRetained(ABIError(code: code, message: message)).toOpaque())
        return code.rawValue
    }
}

/// A C string argument that must not be NULL.
func required(_ text: UnsafePointer<CChar>?, _ name: String) throws -> String {
    guard let text else { throw ArgumentError("\(name) is NULL") }
    return String(cString: text)
}

@_cdecl("au_error_code")
public func au_error_code(_ error: OpaquePointer?) -> Int32 {
    guard let error else { return ABICode.ok.rawValue }
    return Unmanaged<ABIError>.fromOpaque(UnsafeRawPointer(error)).takeUnretainedValue().code.rawValue
}

@_cdecl("au_error_message")
public func au_error_message(_ error: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let error else { return nil }
    return UnsafePointer(Unmanaged<ABIError>.fromOpaque(UnsafeRawPointer(error)).takeUnretainedValue().message)
}

@_cdecl("au_error_free")
public func au_error_free(_ error: OpaquePointer?) {
    guard let error else { return }
    Unmanaged<ABIError>.fromOpaque(UnsafeRawPointer(error)).release()
}

@_cdecl("au_string_free")
public func au_string_free(_ string: UnsafeMutablePointer<CChar>?) {
    free(string)
}
