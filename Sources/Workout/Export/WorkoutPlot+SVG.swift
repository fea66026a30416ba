import Foundation
import GPSCore

/// Rendering: the map panel, then the two charts, laid out from the width.
extension WorkoutPlot {
    private static let margin = 16.0
    private static let titleHeight = 44.0
    private static let chartHeight = 150.0
    private static let axisGutter = 44.0
    private static let axisBelow = 30.0
    private static let gap = 22.0

    /// The SVG document: UTF-8 text, well-formed XML, its size in pixels set by ``width``. The
    /// title is also the document's `<title>`; the map's lines have `class="route"` (one per
    /// segment), the charts' lines `class="series"`, and an empty panel's message `class="no-data"`.
    public func svg() -> String {
        let width = Double(self.width)
        let routeHeight = (width * 0.5).rounded()
        let elevationTop = Self.titleHeight + routeHeight + Self.gap
        let heartRateTop = elevationTop + Self.chartHeight + Self.axisBelow + Self.gap
        let height = heartRateTop + Self.chartHeight + Self.axisBelow
        var svg = SVGText()
        svg.raw(#"<?xml version="1.0" encoding="UTF-8"?>"#)
        svg.raw("\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(self.width)\" height=\"\(Int(height))\" ")
        svg.raw("viewBox=\"0 0 \(self.width) \(Int(height))\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n")
        svg.raw("<title>")
        svg.text(title)
        svg.raw("</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n")
        svg.raw("<text x=\"\(SVGText.f(Self.margin))\" y=\"28\" font-size=\"18\" font-weight=\"bold\" fill=\"#212529\">")
        svg.text(title)
        svg.raw("</text>\n")
        drawRoute(into: &svg, x: Self.margin, y: Self.titleHeight, width: width - 2 * Self.margin, height: routeHeight)
        drawChart(
            elevation, into: &svg, top: elevationTop, label: "Elevation (m)", empty: "no elevation data",
            color: "#2b8a3e", id: "elevation", maximumGap: .infinity)
        drawChart(
            heartRate, into: &svg, top: heartRateTop, label: "Heart rate (bpm)", empty: "no heart rate data",
            color: "#c92a2a", id: "heart-rate", maximumGap: 120)
        svg.raw("</svg>\n")
        return String(decoding: svg.bytes, as: UTF8.self)
    }

    private func drawRoute(into svg: inout SVGText, x: Double, y: Double, width: Double, height: Double) {
        svg.raw("<g id=\"route\">\n<rect x=\"\(SVGText.f(x))\" y=\"\(SVGText.f(y))\" width=\"\(SVGText.f(width))\" ")
        svg.raw("height=\"\(SVGText.f(height))\" fill=\"#f1f3f5\" rx=\"6\"/>\n")
        let points = route.points
        guard let first = points.first, let last = points.last else {
            svg.noData("no route data", x: x + width / 2, y: y + height / 2)
            svg.raw("</g>\n")
            return
        }
        let cosine = max(cos(route.meanLatitude * .pi / 180), 1e-6)
        let spanX = (route.maximumLongitude - route.minimumLongitude) * cosine
        let spanY = route.maximumLatitude - route.minimumLatitude
        let inset = 16.0
        let scale = min(
            spanX > 0 ? (width - 2 * inset) / spanX : .infinity,
            spanY > 0 ? (height - 2 * inset) / spanY : .infinity)
        let fitted = scale.isFinite ? scale : 1
        let centreLongitude = (route.minimumLongitude + route.maximumLongitude) / 2
        let centreLatitude = (route.minimumLatitude + route.maximumLatitude) / 2
        func project(_ point: RouteSketch.Point) -> (x: Double, y: Double) {
            (x + width / 2 + (point.longitude - centreLongitude) * cosine * fitted,
             y + height / 2 - (point.latitude - centreLatitude) * fitted)
        }
        var start = 0
        while start < points.count {
            var end = start
            while end < points.count, points[end].segment == points[start].segment { end += 1 }
            svg.polyline(points[start..<end].map(project), className: "route", color: "#e8590c", width: 2.5)
            start = end
        }
        for (point, className, color) in [(first, "start", "#2f9e44"), (last, "end", "#e03131")] {
            let (cx, cy) = project(point)
            svg.raw("<circle class=\"\(className)\" cx=\"\(SVGText.f(cx))\" cy=\"\(SVGText.f(cy))\" r=\"6\" ")
            svg.raw("fill=\"\(color)\" stroke=\"#ffffff\" stroke-width=\"2\"><title>\(className)</title></circle>\n")
        }
        svg.raw("</g>\n")
    }

    private func drawChart(
        _ series: PlotSeries, into svg: inout SVGText, top: Double, label: String, empty: String,
        color: String, id: String, maximumGap: Double
    ) {
        let left = Self.margin + Self.axisGutter
        let right = Double(width) - Self.margin
        let bottom = top + Self.chartHeight
        svg.raw("<g id=\"\(id)\">\n<rect x=\"\(SVGText.f(left))\" y=\"\(SVGText.f(top))\" width=\"\(SVGText.f(right - left))\" ")
        svg.raw("height=\"\(SVGText.f(Self.chartHeight))\" fill=\"#f8f9fa\"/>\n")
        svg.raw("<text x=\"\(SVGText.f(left))\" y=\"\(SVGText.f(top - 5))\" font-weight=\"bold\" fill=\"#495057\">")
        svg.text(label)
        svg.raw("</text>\n")
        defer { svg.raw("</g>\n") }
        guard !series.isEmpty else {
            svg.noData(empty, x: (left + right) / 2, y: (top + bottom) / 2)
            return
        }
        // Value axis: gridlines at round values, labelled on the left.
        let (ticks, range) = PlotTicks.values(series.minimum, series.maximum)
        func y(_ value: Double) -> Double {
            bottom - (value - range.lowerBound) / (range.upperBound - range.lowerBound) * Self.chartHeight
        }
        for tick in ticks {
            let tickY = SVGText.f(y(tick))
            svg.raw("<line x1=\"\(SVGText.f(left))\" y1=\"\(tickY)\" x2=\"\(SVGText.f(right))\" y2=\"\(tickY)\" stroke=\"#dee2e6\"/>")
            svg.raw("<text x=\"\(SVGText.f(left - 6))\" y=\"\(SVGText.f(y(tick) + 4))\" text-anchor=\"end\" fill=\"#495057\">")
            svg.raw(SVGText.f(tick, decimals: 2))
            svg.raw("</text>\n")
        }
        // Time axis: elapsed h:mm below.
        let duration = max(workout.elapsedTime, 1e-9)
        func x(_ time: Double) -> Double { left + (time - series.start) / duration * (right - left) }
        svg.raw("<line x1=\"\(SVGText.f(left))\" y1=\"\(SVGText.f(bottom))\" x2=\"\(SVGText.f(right))\" y2=\"\(SVGText.f(bottom))\" stroke=\"#868e96\"/>\n")
        for elapsed in PlotTicks.times(duration: workout.elapsedTime) {
            let tickX = SVGText.f(left + elapsed / duration * (right - left))
            svg.raw("<line x1=\"\(tickX)\" y1=\"\(SVGText.f(bottom))\" x2=\"\(tickX)\" y2=\"\(SVGText.f(bottom + 4))\" stroke=\"#868e96\"/>")
            svg.raw("<text x=\"\(tickX)\" y=\"\(SVGText.f(bottom + 17))\" text-anchor=\"middle\" fill=\"#495057\">")
            svg.raw(PlotTicks.elapsed(elapsed))
            svg.raw("</text>\n")
        }
        for line in series.lines(maximumGap: maximumGap) {
            svg.polyline(line.map { (x($0.time), y($0.value)) }, className: "series", color: color, width: 1.5)
        }
    }
}

/// SVG text being built: markup, escaped text, and numbers to a tenth of a pixel.
struct SVGText {
    var bytes: [UInt8] = []

    /// A number to `decimals` places, trailing zeros dropped.
    static func f(_ value: Double, decimals: Int = 1) -> String {
        var bytes: [UInt8] = []
        TextBytes.appendFixed(value, decimals: decimals, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Markup, written as is.
    mutating func raw(_ markup: String) {
        bytes.append(contentsOf: markup.utf8)
    }

    /// Text content, escaped.
    mutating func text(_ text: String) {
        TextBytes.appendXML(text, to: &bytes)
    }

    /// A line through `points` (a dot when there is only one).
    mutating func polyline(_ points: [(x: Double, y: Double)], className: String, color: String, width: Double) {
        if points.count == 1 {
            raw("<circle class=\"\(className)\" cx=\"\(Self.f(points[0].x))\" cy=\"\(Self.f(points[0].y))\" r=\"\(Self.f(width))\" fill=\"\(color)\"/>\n")
            return
        }
        raw("<polyline class=\"\(className)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"\(Self.f(width))\" ")
        raw("stroke-linejoin=\"round\" stroke-linecap=\"round\" points=\"")
        for (index, point) in points.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: " ")) }
            TextBytes.appendFixed(point.x, decimals: 1, to: &bytes)
            bytes.append(UInt8(ascii: ","))
            TextBytes.appendFixed(point.y, decimals: 1, to: &bytes)
        }
        raw("\"/>\n")
    }

    /// A grey message in the middle of an empty panel.
    mutating func noData(_ message: String, x: Double, y: Double) {
        raw("<text class=\"no-data\" x=\"\(Self.f(x))\" y=\"\(Self.f(y))\" text-anchor=\"middle\" font-size=\"14\" fill=\"#868e96\">")
        text(message)
        raw("</text>\n")
    }
}
