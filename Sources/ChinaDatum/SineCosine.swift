#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sine and cosine together, by Taylor series on |θ| ≤ 2 and libm beyond.
///
/// The datum formulas evaluate a dozen sines per point, all of small arguments inside China.
/// A polynomial the compiler can inline and vectorise is several times faster than libm
/// calls, and it gives the same bits on every platform, which keeps region tables and reports
/// byte-identical across machines. On |θ| ≤ 2 the first omitted terms are below 3e-18, so the
/// result is within a couple of ulps of the true value.
@inlinable
func sineCosine(_ theta: Double) -> (sin: Double, cos: Double) {
    guard abs(theta) <= 2 else { return (sin(theta), cos(theta)) }
    // Horner in t⁴ on the even- and odd-indexed coefficients separately: four independent
    // chains of six steps instead of two of twelve, so the processor overlaps them.
    let t2 = theta * theta
    let t4 = t2 * t2
    var sEven = 1.9572941063391263e-20
    var sOdd = -3.868170170630684e-23
    var cEven = 1.6117375710961184e-24
    var cOdd = -8.896791392450574e-22
    sEven = sEven * t4 + 2.8114572543455206e-15
    sOdd = sOdd * t4 - 8.22063524662433e-18
    cEven = cEven * t4 + 4.110317623312165e-19
    cOdd = cOdd * t4 - 1.5619206968586225e-16
    sEven = sEven * t4 + 1.6059043836821613e-10
    sOdd = sOdd * t4 - 7.647163731819816e-13
    cEven = cEven * t4 + 4.779477332387385e-14
    cOdd = cOdd * t4 - 1.1470745597729725e-11
    sEven = sEven * t4 + 2.7557319223985893e-06
    sOdd = sOdd * t4 - 2.505210838544172e-08
    cEven = cEven * t4 + 2.08767569878681e-09
    cOdd = cOdd * t4 - 2.755731922398589e-07
    sEven = sEven * t4 + 0.008333333333333333
    sOdd = sOdd * t4 - 0.0001984126984126984
    cEven = cEven * t4 + 2.48015873015873e-05
    cOdd = cOdd * t4 - 0.001388888888888889
    sEven = sEven * t4 + 1.0
    sOdd = sOdd * t4 - 0.16666666666666666
    cEven = cEven * t4 + 0.041666666666666664
    cOdd = cOdd * t4 - 0.5
    cEven = cEven * t4 + 1.0
    let s = sEven + t2 * sOdd
    let c = cEven + t2 * cOdd
    return (s * theta, c)
}
