/// The few parts of the FIT profile (Garmin's FIT SDK, `Profile.xlsx`) the reader needs: message
/// and field numbers, and readable names for the `sport` and `manufacturer` enums.
enum FITProfile {
    /// Global message numbers.
    static let fileID: UInt16 = 0, sport: UInt16 = 12, session: UInt16 = 18, record: UInt16 = 20, event: UInt16 = 21

    /// Field 253 of every message: seconds since the FIT epoch.
    static let timestampField: UInt8 = 253
    /// 1989-12-31T00:00:00Z, the FIT epoch, in seconds since 1970.
    static let epoch: Int64 = 631_065_600
    /// Timestamps below this are seconds since the device powered on, not a date.
    static let firstAbsoluteTimestamp: UInt32 = 0x1000_0000

    /// `sub_sport` value `virtual_activity` (Zwift and other indoor apps drawing a virtual route).
    static let virtualActivity: UInt64 = 58

    /// The `sport` enum's name, with spaces for the profile's underscores (`cross country
    /// skiing`), `virtual ` before it for a virtual activity; `sport N` for a number the profile
    /// does not name.
    static func sportName(_ sport: UInt64, subSport: UInt64?) -> String {
        let name = sportNames[sport] ?? "sport \(sport)"
        return subSport == virtualActivity ? "virtual " + name : name
    }

    /// The `manufacturer` enum's name for the makers of GPS devices and apps that write FIT
    /// files, `manufacturer N` for others.
    static func manufacturerName(_ manufacturer: UInt64) -> String {
        manufacturerNames[manufacturer] ?? "manufacturer \(manufacturer)"
    }

    private static let sportNames: [UInt64: String] = [
        0: "generic", 1: "running", 2: "cycling", 3: "transition", 4: "fitness equipment", 5: "swimming",
        6: "basketball", 7: "soccer", 8: "tennis", 9: "american football", 10: "training", 11: "walking",
        12: "cross country skiing", 13: "alpine skiing", 14: "snowboarding", 15: "rowing", 16: "mountaineering",
        17: "hiking", 18: "multisport", 19: "paddling", 20: "flying", 21: "e-biking", 22: "motorcycling",
        23: "boating", 24: "driving", 25: "golf", 26: "hang gliding", 27: "horseback riding", 28: "hunting",
        29: "fishing", 30: "inline skating", 31: "rock climbing", 32: "sailing", 33: "ice skating",
        34: "sky diving", 35: "snowshoeing", 36: "snowmobiling", 37: "stand up paddleboarding", 38: "surfing",
        39: "wakeboarding", 40: "water skiing", 41: "kayaking", 42: "rafting", 43: "windsurfing",
        44: "kitesurfing", 45: "tactical", 46: "jumpmaster", 47: "boxing", 48: "floor climbing", 49: "baseball",
        53: "diving", 62: "hiit", 64: "racket", 65: "wheelchair push walk", 66: "wheelchair push run",
        67: "meditation", 69: "disc golf", 71: "cricket", 72: "rugby", 73: "hockey", 74: "lacrosse",
        75: "volleyball", 76: "water tubing", 77: "wakesurfing", 80: "mixed martial arts", 82: "snorkeling",
        83: "dance", 84: "jump rope", 254: "all",
    ]

    private static let manufacturerNames: [UInt64: String] = [
        1: "Garmin", 13: "Dynastream OEM", 15: "Dynastream", 16: "Timex", 23: "Suunto", 32: "Wahoo Fitness",
        37: "Magellan", 39: "Holux", 45: "Xplova", 61: "Geonaute", 63: "Specialized", 68: "CatEye",
        69: "Stages Cycling", 70: "Sigmasport", 71: "TomTom", 89: "Tacx", 107: "Magene", 112: "Bryton Sensors",
        115: "iGPSPORT", 123: "Polar Electro", 129: "COROS Byte", 135: "Coospo", 140: "Decathlon Byte",
        144: "Zwift Byte", 148: "Ezon", 255: "Development", 258: "Lezyne", 260: "Zwift", 265: "Strava",
        267: "Bryton", 272: "Mio Magellan", 281: "Trainer Road", 289: "Hammerhead", 294: "COROS",
        298: "Trailforks", 305: "Whoop", 307: "Onelap", 310: "Decathlon", 326: "Nike", 331: "MyWhoosh",
    ]
}
