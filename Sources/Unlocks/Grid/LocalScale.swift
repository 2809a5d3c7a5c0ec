import Foundation
import Tracks

/// Metres between nearby points: the ellipsoid's radii of curvature at the legs' mean latitude,
/// recomputed when that latitude moves by more than 0.01° (the scale then errs by < 2·10⁻⁴;
/// better than 0.1% for the legs of a track — flights use it per leg, where legs are short too).
package struct LocalScale {
    private var latitude = Double.nan
    private var northPerDegree = 0.0
    private var eastPerDegree = 0.0

    package init() {}

    @inline(__always)
    package mutating func metres(from a: TrackPoint, to b: TrackPoint) -> Double {
        let mean = (a.latitude + b.latitude) / 2
        if !(abs(mean - latitude) <= 0.01) { rescale(mean) }
        var dLon = b.longitude - a.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let north = (b.latitude - a.latitude) * northPerDegree
        let east = dLon * eastPerDegree
        return (north * north + east * east).squareRoot()
    }

    private mutating func rescale(_ mean: Double) {
        let phi = mean * .pi / 180
        let s = sin(phi)
        let w = (1 - ExploredGrid.e2 * s * s).squareRoot()
        northPerDegree = ExploredGrid.a * (1 - ExploredGrid.e2) / (w * w * w) * .pi / 180
        eastPerDegree = ExploredGrid.a / w * cos(phi) * .pi / 180
        latitude = mean
    }
}
