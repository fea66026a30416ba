/// A uniform grid over longitude and latitude: each region is listed in every cell its box (grown
/// by the margin within which a fix could still decide it is not outside) touches, so that a fix
/// looks at the regions of its own cell only. A region that would fill too many cells (a country,
/// a region across the antimeridian) is kept in a list looked at for every fix.
struct SpatialIndex: Sendable {
    struct Cell: Hashable, Sendable {
        var x: Int32
        var y: Int32
    }

    /// Degrees per cell side: about 1.1 km of latitude.
    static let cellSize = 0.01
    /// A region covering more cells than this is looked at for every fix.
    static let maximumCells = 4096

    private var cells: [Cell: [Int]] = [:]
    private var everywhere: Set<Int> = []
    /// Each slot's cells, to take it out again.
    private var placed: [Int: [Cell]] = [:]

    static func cell(latitude: Double, longitude: Double) -> Cell {
        Cell(x: Int32((longitude / cellSize).rounded(.down)), y: Int32((latitude / cellSize).rounded(.down)))
    }

    mutating func insert(_ slot: Int, box: GeoBoundingBox) {
        let low = Self.cell(latitude: box.minLatitude, longitude: box.minLongitude)
        let high = Self.cell(latitude: box.maxLatitude, longitude: box.maxLongitude)
        let width = Int(high.x) - Int(low.x) + 1
        let height = Int(high.y) - Int(low.y) + 1
        guard box.minLongitude >= -180, box.maxLongitude <= 180, width * height <= Self.maximumCells else {
            everywhere.insert(slot)
            return
        }
        var list: [Cell] = []
        list.reserveCapacity(width * height)
        for x in low.x...high.x {
            for y in low.y...high.y {
                let cell = Cell(x: x, y: y)
                cells[cell, default: []].append(slot)
                list.append(cell)
            }
        }
        placed[slot] = list
    }

    mutating func remove(_ slot: Int) {
        everywhere.remove(slot)
        for cell in placed.removeValue(forKey: slot) ?? [] {
            cells[cell]?.removeAll { $0 == slot }
            if cells[cell]?.isEmpty == true { cells[cell] = nil }
        }
    }

    /// The slots whose grown box may hold a fix at `point`, and those looked at for every fix.
    func candidates(near point: GeoCoordinate) -> [Int] {
        var list = cells[Self.cell(latitude: point.latitude, longitude: point.longitude)] ?? []
        list.append(contentsOf: everywhere)
        return list
    }
}
