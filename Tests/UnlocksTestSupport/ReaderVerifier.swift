import Tracks
import XCTest

/// Checks that a reader gives the same answer however its input arrives: all at once, one byte per
/// read, and in seeded random chunks (the idea of swift-nio's `ByteToMessageDecoderVerifier`,
/// for pull readers). A reader that loses or repeats bytes where a read ends, or reads past what
/// it was given, disagrees with itself under one of the feedings.
public enum ReaderVerifier {
    /// What one feeding gave: the value read, or the error thrown (by type and description).
    public enum Outcome<Output: Equatable>: Equatable, CustomStringConvertible {
        case value(Output)
        case error(String)

        init(_ read: () throws -> Output) {
            do { self = .value(try read()) } catch { self = .error("\(type(of: error)): \(error)") }
        }

        public var description: String {
            switch self {
            case let .value(v): return "\(v)"
            case let .error(e): return "error \(e)"
            }
        }
    }

    /// A feeding whose outcome differs from the one expected (or from the whole read's).
    public struct Disagreement<Output: Equatable>: CustomStringConvertible {
        public let feeding: FedSource.Feeding
        public let outcome: Outcome<Output>
        public let expected: Outcome<Output>
        public var description: String { "read \(feeding): \(outcome.description.prefix(2000)); expected \(expected.description.prefix(2000))" }
    }

    /// The feedings tried: all at once, one byte at a time, then `randomRuns` random chunkings.
    public static func feedings(randomRuns: Int = 4, largest: Int = 4096, seed: UInt64 = 1) -> [FedSource.Feeding] {
        [.whole, .fixed(1)] + (0..<UInt64(randomRuns)).map { .random(seed: seed &+ $0, largest: largest) }
    }

    /// Reads `bytes` under each feeding; returns the whole read's outcome and every feeding that
    /// disagreed with it (or with `expected`, when given: then the whole read must match too).
    public static func disagreements<Output: Equatable>(_ bytes: [UInt8], expected: Output? = nil, feedings: [FedSource.Feeding] = feedings(),
                                                        read: (FedSource) throws -> Output) -> (whole: Outcome<Output>, disagreements: [Disagreement<Output>]) {
        let whole = Outcome { try read(FedSource(bytes, feeding: .whole)) }
        let reference = expected.map(Outcome.value) ?? whole
        var found: [Disagreement<Output>] = []
        for feeding in feedings {
            let outcome = feeding == .whole ? whole : Outcome { try read(FedSource(bytes, feeding: feeding)) }
            if outcome != reference { found.append(Disagreement(feeding: feeding, outcome: outcome, expected: reference)) }
        }
        return (whole, found)
    }

    /// Fails the test for each feeding whose outcome differs; returns the whole read's outcome.
    @discardableResult
    public static func verify<Output: Equatable>(_ bytes: [UInt8], expected: Output? = nil, feedings: [FedSource.Feeding] = feedings(),
                                                 file: StaticString = #filePath, line: UInt = #line,
                                                 read: (FedSource) throws -> Output) -> Outcome<Output> {
        let (whole, found) = disagreements(bytes, expected: expected, feedings: feedings, read: read)
        for disagreement in found { XCTFail("\(disagreement)", file: file, line: line) }
        return whole
    }

    /// A track reader's events and error under each feeding: every feeding must deliver the same
    /// events and end the same way (the events delivered before an error included). Returns what
    /// the whole read delivered and the error it threw.
    @discardableResult
    public static func verifyEvents(_ bytes: [UInt8], feedings: [FedSource.Feeding] = feedings(), file: StaticString = #filePath, line: UInt = #line,
                                    read: (FedSource, inout TrackEventRecorder) throws -> Void) -> (events: TrackEventRecorder, error: Error?) {
        func run(_ feeding: FedSource.Feeding) -> (TrackEventRecorder, Error?) {
            var sink = TrackEventRecorder()
            do { try read(FedSource(bytes, feeding: feeding), &sink) } catch { return (sink, error) }
            return (sink, nil)
        }
        let (events, error) = run(.whole)
        let ending = error.map { "\(type(of: $0)): \($0)" }
        for feeding in feedings where feeding != .whole {
            let (other, otherError) = run(feeding)
            let otherEnding = otherError.map { "\(type(of: $0)): \($0)" }
            if other != events {
                let first = zip(other.events, events.events).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(other.events.count, events.events.count)
                let got = first < other.events.count ? "\(other.events[first])" : "nothing", want = first < events.events.count ? "\(events.events[first])" : "nothing"
                XCTFail("read \(feeding): \(other.events.count) events, all at once \(events.events.count); event \(first) is \(got), all at once \(want)", file: file, line: line)
            }
            if otherEnding != ending {
                XCTFail("read \(feeding): ended with \(otherEnding ?? "no error"), all at once with \(ending ?? "no error")", file: file, line: line)
            }
        }
        return (events, error)
    }
}
