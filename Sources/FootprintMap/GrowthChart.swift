import Foundation
import Unlocks
import Tracks

extension Footprint {
    /// The growth chart: the explored total as a step line over calendar days (flat across days
    /// without new cells, so a seven-month gap is a flat stretch, never a diagonal), and under it
    /// the km² first explored each day as bars, each panel with its own labelled scale. Drawn at
    /// two widths, one for wide screens and one for phones, so its text stays legible on both.
    func growthChart() -> String {
        guard let first = growth.first?.day, let last = growth.last?.day else { return "" }
        var out = "<section id=\"growth-section\"><h2>Growth 每日新探索</h2>\n"
        out += growthSVG(first: first, last: last, width: 900, height: 340, className: "wide")
        out += growthSVG(first: first, last: last, width: 420, height: 360, className: "narrow")
        out += "<p class=\"legend\">Above: explored km² in all, stepping up on each day with new cells. Below: km² first explored that day.</p>\n</section>\n"
        return out
    }

    func growthSVG(first: Int64, last: Int64, width: Int, height: Int, className: String) -> String {
        let left = 58.0, right = Double(width) - 12, font = 13
        let totalTop = 16.0, totalBottom = Double(height) * 0.56, barTop = totalBottom + 34, barBottom = Double(height) - 30
        let span = Double(last + 1 - first)
        func x(_ day: Int64) -> Double { left + Double(day - first) / span * (right - left) }
        let total = growth.reduce(0.0) { $0 + $1.newSquareMetres } / 1e6
        let biggest = growth.map(\.newSquareMetres).max()! / 1e6
        let totalTicks = Self.niceTicks(maximum: total), barTicks = Self.niceTicks(maximum: biggest)
        func yTotal(_ v: Double) -> Double { totalBottom - v / totalTicks.last! * (totalBottom - totalTop) }
        func yBar(_ v: Double) -> Double { barBottom - v / barTicks.last! * (barBottom - barTop) }

        var out = "<svg class=\"chart \(className)\" id=\"growth-\(className)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"Explored area over time\" font-size=\"\(font)\" font-family=\"system-ui,sans-serif\">\n"
        // Scales: gridlines and labels at round values, units in the label.
        var grid = "", labels = ""
        for (ticks, y, unit) in [(totalTicks, yTotal, "km²"), (barTicks, yBar, "km²/day")] {
            for (k, v) in ticks.enumerated() {
                let yy = fixedText(y(v), 1)
                grid += "M\(fixedText(left, 1)) \(yy)H\(fixedText(right, 1))"
                labels += "<text x=\"\(fixedText(left - 6, 1))\" y=\"\(yy)\" dy=\"4\" text-anchor=\"end\">\(Self.tickText(v))\(k == ticks.count - 1 ? "" : "")</text>"
            }
            labels += "<text x=\"\(fixedText(left, 1))\" y=\"\(fixedText(y(ticks.last!) - 5, 1))\" fill=\"#59606a\">\(unit)</text>"
        }
        out += "<path d=\"\(grid)\" stroke=\"#e3e3dc\" fill=\"none\"/>\n"
        // The total: flat between days with new cells, a vertical step on each such day.
        var step = "M\(fixedText(x(first), 1)) \(fixedText(yTotal(0), 1))", cumulative = 0.0, bars = ""
        let barWidth = max(1, (right - left) / span * 0.8)
        for day in growth {
            cumulative += day.newSquareMetres / 1e6
            step += "H\(fixedText(x(day.day), 1))V\(fixedText(yTotal(cumulative), 1))"
            let h = day.newSquareMetres / 1e6 / barTicks.last! * (barBottom - barTop)
            bars += "M\(fixedText(x(day.day), 1)) \(fixedText(barBottom, 1))v-\(fixedText(max(h, 0.5), 1))h\(fixedText(barWidth, 1))v\(fixedText(max(h, 0.5), 1))z"
        }
        step += "H\(fixedText(x(last + 1), 1))"
        out += "<path d=\"\(step)\" fill=\"none\" stroke=\"#d7263d\" stroke-width=\"2\"/>\n<path d=\"\(bars)\" fill=\"#e07b8b\"/>\n"
        out += "<path d=\"M\(fixedText(left, 1)) \(fixedText(totalTop, 1))V\(fixedText(totalBottom, 1))H\(fixedText(right, 1))M\(fixedText(left, 1)) \(fixedText(barTop, 1))V\(fixedText(barBottom, 1))H\(fixedText(right, 1))\" stroke=\"#59606a\" fill=\"none\"/>\n"
        // Dates along the time axis: the first day, the last, and round dates between.
        var dates = "<text x=\"\(fixedText(x(first), 1))\" y=\"\(fixedText(barBottom + 18, 1))\">\(Self.date(first))</text>"
        dates += "<text x=\"\(fixedText(right, 1))\" y=\"\(fixedText(barBottom + 18, 1))\" text-anchor=\"end\">\(Self.date(last))</text>"
        let room = Double(font) * 7
        for day in Self.dateTicks(first: first, last: last) where x(day) - x(first) > room && right - x(day) > room {
            dates += "<text x=\"\(fixedText(x(day), 1))\" y=\"\(fixedText(barBottom + 18, 1))\" text-anchor=\"middle\" fill=\"#59606a\">\(Self.date(day).prefix(7))</text>"
            out += "<path d=\"M\(fixedText(x(day), 1)) \(fixedText(barBottom, 1))v4M\(fixedText(x(day), 1)) \(fixedText(totalBottom, 1))v4\" stroke=\"#59606a\"/>"
        }
        out += labels + "\n" + dates + "\n</svg>\n"
        return out
    }

    /// 0 and round steps (1, 2 or 5 × 10ⁿ) up to the first at or above `maximum`: 3 to 6 ticks.
    static func niceTicks(maximum: Double) -> [Double] {
        let top = max(maximum, 1e-6)
        let raw = top / 4, magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
        var ticks = [0.0]
        while ticks.last! < top - step * 1e-9 { ticks.append(Double(ticks.count) * step) }
        return ticks
    }

    static func tickText(_ v: Double) -> String {
        if v == 0 { return "0" }
        var text = String(format: "%.6g", v)
        if text.contains("e") { text = String(format: "%.6f", v) }
        return text
    }

    /// First days of months (of years when the span is over three years), at most about eight.
    static func dateTicks(first: Int64, last: Int64) -> [Int64] {
        let start = Timestamp.civilDate(daysSinceEpoch: first), end = Timestamp.civilDate(daysSinceEpoch: last)
        let months = (Int(end.year) - Int(start.year)) * 12 + Int(end.month) - Int(start.month)
        let every = months > 36 ? 12 * max(1, months / 96) : max(1, Int((Double(months) / 8).rounded(.up)))
        var ticks: [Int64] = []
        var year = Int(start.year), month = Int(start.month)
        while true {
            month += 1
            if month > 12 { month = 1; year += 1 }
            let index = (year - Int(start.year)) * 12 + month - Int(start.month)
            guard index <= months else { break }
            if months > 36 ? month == 1 && (year % max(1, every / 12) == 0) : (index % every == 0) {
                ticks.append(Timestamp.daysSinceEpoch(year: Int64(year), month: Int64(month), day: 1))
            }
        }
        return ticks
    }
}
