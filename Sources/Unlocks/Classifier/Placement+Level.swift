import RegionTables

extension Placement {
    /// The placement at one level (the classifier's evidence per level, the audit's flags).
    public func level(_ level: RegionLevel) -> LevelPlacement {
        switch level {
        case .country: return country
        case .province: return province
        case .city: return city
        case .county: return county
        case .subdivision: return subdivision
        }
    }
}
