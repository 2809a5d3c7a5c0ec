import XCTest
import ChinaDatum
@testable import Unlocks

/// The datum hint table (docs/datum.md, "Hints, never switches"): Keep and Zepp Life (华米), whose
/// coordinates are GCJ-02 (running_page issues #303, #198 and #674), besides the map apps.
final class DatumHintTests: XCTestCase {
    func testZeppLifeAndItsFormerNameAreGCJ02() throws {
        // "ZeppLife App" is the creator of a Zepp Life GPX export (version 6.8.1), as kept in a
        // GPX library's tests; "Mi Fit" is the app's name before 2022.
        for creator in ["ZeppLife App", "Zepp Life", "Mi Fit", "小米运动", "华米科技"] {
            let hint = try XCTUnwrap(DatumHint.hint(creator: creator, readIn: .wgs84), creator)
            XCTAssertEqual(hint.datum, .gcj02, creator)
            XCTAssertTrue(hint.reason.contains("Zepp Life"), hint.reason)
        }
    }

    func testKeepIsAWholeWord() throws {
        for creator in ["Keep", "Keep 7.2.0", "com.gotokeep.keep"] {
            XCTAssertEqual(DatumHint.hint(creator: creator, readIn: .wgs84)?.datum, .gcj02, creator)
        }
        // Words that only contain it, and the GPX running_page writes from Keep's data (converted
        // to WGS-84 by default, creator gpxpy's): no hint.
        for creator in ["Timekeeper", "GPSKeeper 2", "gpx.py -- https://github.com/tkrajina/gpxpy", "Zepp App"] {
            XCTAssertNil(DatumHint.hint(creator: creator, readIn: .wgs84), creator)
        }
    }

    func testNoHintWhenReadInTheHintedDatum() {
        XCTAssertNil(DatumHint.hint(creator: "ZeppLife App", readIn: .gcj02))
        XCTAssertNotNil(DatumHint.hint(creator: "ZeppLife App", readIn: .bd09))
    }
}
