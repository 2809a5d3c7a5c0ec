import Foundation
import ChinaDatum
import RegionTables
import TextFormats
import Tracks
import Unlocks

/// Where one of the audit's documents goes. Its body streams while the run goes on; `finish`
/// completes it as head + body + tail. A document that opens with what is known at the start
/// (audit.json, audit.geojson) writes its opening as body and finishes with an empty head; the
/// HTML page's head holds the summary, known only at the end. (A file: the target is replaced
/// only once the document is complete.)
public protocol AuditDocument: AnyObject {
    /// Appends to the body.
    func append(_ bytes: [UInt8]) throws
    /// Completes the document as head + body + tail.
    func finish(head: [UInt8], tail: [UInt8]) throws
}

/// An `AuditDocument` kept in memory (tests, small archives, embedding apps).
public final class AuditDocumentBuffer: AuditDocument {
    /// The whole document, once finished.
    public private(set) var bytes: [UInt8] = []
    private var body: [UInt8] = []

    public init() {}

    public func append(_ bytes: [UInt8]) { body += bytes }

    public func finish(head: [UInt8], tail: [UInt8]) {
        bytes = head + body + tail
        body = []
    }

    /// The finished document as text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// The full-resolution boundary source, when it is at hand: the simplification-flip check and
/// the source's border lines on the maps. Implemented where GEOS lives (the command line), so
/// that this module stays pure Swift.
public protocol AuditSource: AnyObject {
    /// What is checked, for the report (e.g. which levels, against which release).
    var note: String { get }
    /// The source's region code per level it checks for the point (nil: in no region there).
    func codes(for point: AuditedPoint) throws -> [RegionLevel: String?]
    /// The source's borders, in WGS-84, of the regions it has loaded (those the points checked
    /// so far could be in), within the box.
    func borders(south: Double, west: Double, north: Double, east: Double) throws -> [SourceBorder]
}

/// A region's border in the full-resolution source, as runs of WGS-84 (latitude, longitude).
public struct SourceBorder {
    public var level: RegionLevel
    public var code: String
    public var runs: [[(latitude: Double, longitude: Double)]]

    public init(level: RegionLevel, code: String, runs: [[(latitude: Double, longitude: Double)]]) {
        self.level = level
        self.code = code
        self.runs = runs
    }
}
