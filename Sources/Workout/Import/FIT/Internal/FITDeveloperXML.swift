import FIT
import GPSCore

/// A record's developer fields (an app's own values: a running-power pod's "Form Power", a
/// trainer app's "Doughnuts Earned") that no profile field claims, kept with the route point as
/// XML, as a GPX import keeps unknown extensions: the store's GPX export writes them back inside
/// the point's `<extensions>`, and a GPX import of that export keeps them again.
///
/// ```xml
/// <fitdev:field xmlns:fitdev="urn:swift-gps-facade:fit-developer-field" app="0" number="0" name="Form Power" units="Watts">40</fitdev:field>
/// ```
enum FITDeveloperXML {
    /// The namespace of the elements.
    static let namespace = "urn:swift-gps-facade:fit-developer-field"

    /// The most XML a point keeps of its developer fields: a record may hold 255 fields of 255
    /// bytes each (some 160 KB as XML), and a batch thousands of records.
    static let maximumBytes = 8 * 1024

    /// The fields with a value as one XML fragment of at most ``maximumBytes`` (`nil` when there is
    /// none), and how many fields with a value did not fit in it and were dropped.
    static func fragment(_ values: [FITDeveloperValue]) -> (xml: String?, dropped: Int) {
        var bytes: [UInt8] = []
        var element: [UInt8] = []
        var dropped = 0
        for value in values {
            guard let text = value.scaledNumber.map(number) ?? value.value?.description else { continue }
            element.removeAll(keepingCapacity: true)
            Self.element(value, text, to: &element)
            if bytes.count + element.count > maximumBytes {
                dropped += 1
            } else {
                bytes += element
            }
        }
        return (bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self), dropped)
    }

    /// One field as an element.
    private static func element(_ value: FITDeveloperValue, _ text: String, to bytes: inout [UInt8]) {
        TextBytes.append("<fitdev:field xmlns:fitdev=\"", to: &bytes)
        TextBytes.appendXML(namespace, attribute: true, to: &bytes)
        bytes.append(contentsOf: "\" app=\"\(value.field.developerIndex)\" number=\"\(value.field.number)\"".utf8)
        for (name, attribute) in [("name", value.field.description?.name), ("units", value.field.description?.units)] {
            guard let attribute else { continue }
            bytes.append(contentsOf: " \(name)=\"".utf8)
            TextBytes.appendXML(attribute, attribute: true, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: ">"))
        TextBytes.appendXML(text, to: &bytes)
        TextBytes.append("</fitdev:field>", to: &bytes)
    }

    private static func number(_ value: Double) -> String {
        var bytes: [UInt8] = []
        TextBytes.appendShortest(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
