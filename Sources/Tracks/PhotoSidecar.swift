import TextFormats

/// Google Photos' Takeout sidecar (`IMG_1234.jpg.json`, `….supplemental-metadata.json`): where
/// and when the photo beside it was taken, as Google keeps it. `geoData` (the location Google
/// shows, the photo's own or one the user set) is read, else `geoDataExif` (the camera's); one of
/// exactly (0, 0) is Google's "none". `photoTakenTime.timestamp` is seconds since 1970.
struct PhotoSidecar {
    var seen = false
    var takenTime: Int64?
    var geoData: (latitude: Double, longitude: Double, altitude: Double?)?
    var geoDataExif: (latitude: Double, longitude: Double, altitude: Double?)?
    var problem: String?

    static let members: Set<String> = ["photoTakenTime", "geoData", "geoDataExif"]

    /// Takes one top-level member (its value built: these are small objects).
    mutating func read(key: String, value: JSONValue) {
        seen = true
        switch key {
        case "photoTakenTime":
            if let milliseconds = value["timestamp"].flatMap(integerValue).flatMap(Timestamp.milliseconds(fromSeconds:)) {
                takenTime = milliseconds
            } else {
                problem = problem ?? "photoTakenTime without a timestamp in seconds"
            }
        default:
            guard let latitude = finiteNumber(value["latitude"]), let longitude = finiteNumber(value["longitude"]) else {
                problem = problem ?? "\(key) without a numeric latitude and longitude"
                return
            }
            guard latitude != 0 || longitude != 0 else { return }
            let position = (latitude, longitude, finiteNumber(value["altitude"]).flatMap { $0 == 0 ? nil : $0 })
            if key == "geoData" { geoData = position } else { geoDataExif = position }
        }
    }

    /// Delivers the photo's visit; false when it holds no position.
    func finish<Sink: TrackSink>(_ context: RecordContext, _ sink: inout Sink) -> Bool {
        guard let position = geoData ?? geoDataExif else { return false }
        sink.annotate(.snapshot)
        if let problem {
            sink.unreadablePoint(InputError(path: context.path, reason: problem))
        } else {
            sink.point(TrackPoint(latitude: position.latitude, longitude: position.longitude, time: takenTime, elevation: position.altitude))
        }
        return true
    }
}
