import Tracks

/// Everything a reader delivered, in order: points, segment breaks, unreadable points and
/// annotations. The one recorder every reader test compares against.
public struct TrackEventRecorder: TrackSink, Equatable {
    public enum Event: Equatable {
        case segmentBreak
        case point(TrackPoint)
        case unreadable(InputError)
        case annotation(TrackAnnotation)
    }

    public var events: [Event] = []

    public init() {}

    public var points: [TrackPoint] { events.compactMap { if case let .point(p) = $0 { return p } else { return nil } } }
    public var problems: [InputError] { events.compactMap { if case let .unreadable(e) = $0 { return e } else { return nil } } }
    public var annotations: [TrackAnnotation] { events.compactMap { if case let .annotation(a) = $0 { return a } else { return nil } } }
    public var breaks: Int { events.filter { $0 == .segmentBreak }.count }
    public var pins: Int { annotations.filter { $0 == .pin }.count }

    /// Points with each segment break as `nil` (unreadable points and annotations left out).
    public var pointsAndBreaks: [TrackPoint?] {
        events.compactMap {
            switch $0 {
            case .segmentBreak: return .some(nil)
            case let .point(p): return p
            case .unreadable, .annotation: return nil
            }
        }
    }

    /// Points grouped by segment breaks, empty segments dropped.
    public var segments: [[TrackPoint]] {
        var result: [[TrackPoint]] = [[]]
        for event in events {
            switch event {
            case .segmentBreak: result.append([])
            case let .point(p): result[result.count - 1].append(p)
            case .unreadable, .annotation: break
            }
        }
        return result.filter { !$0.isEmpty }
    }

    public mutating func segmentBreak() { events.append(.segmentBreak) }
    public mutating func point(_ point: TrackPoint) { events.append(.point(point)) }
    public mutating func unreadablePoint(_ problem: InputError) { events.append(.unreadable(problem)) }
    public mutating func annotate(_ annotation: TrackAnnotation) { events.append(.annotation(annotation)) }
}
