/// The current input's places (``PlaceSignature``s), each numbered once in order of first use:
/// the minute tallies count points by palette position, not by signature.
struct PlacePalette {
    private(set) var places: [PlaceSignature] = []
    private var positions: [PlaceSignature: Int32] = [:]
    /// The last place asked for (consecutive points share a place).
    private var last: (signature: PlaceSignature, position: Int32)?

    /// The palette position of a place, added when new.
    mutating func position(of signature: PlaceSignature) -> Int32 {
        if let last, last.signature == signature { return last.position }
        let position: Int32
        if let known = positions[signature] {
            position = known
        } else {
            position = Int32(places.count)
            places.append(signature)
            positions[signature] = position
        }
        last = (signature, position)
        return position
    }

    /// Hands over the places, leaving the palette empty.
    mutating func take() -> [PlaceSignature] {
        defer { self = PlacePalette() }
        return places
    }
}
