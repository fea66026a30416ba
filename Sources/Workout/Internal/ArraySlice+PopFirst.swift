import Foundation

extension ArraySlice {
    /// Removes and returns the first element when it meets `condition` (events taken in time
    /// order beside the samples).
    mutating func popFirst(where condition: (Element) -> Bool) -> Element? {
        guard let first, condition(first) else { return nil }
        return popFirst()
    }
}
