/// An HLS attribute list (`KEY=VALUE,KEY="quoted value",…`), order and quoting preserved.
public struct AttributeList: Sendable, Equatable {
    public struct Attribute: Sendable, Hashable {
        public var name: String
        public var value: String
        public var quoted: Bool
    }
    public private(set) var attributes: [Attribute]

    /// An empty list.
    public init() { attributes = [] }

    /// Parses an attribute list, or says why it is malformed.
    public init(parsing text: Substring) throws(AttributeListError) {
        var result: [Attribute] = []
        var index = text.startIndex
        func skipSpaces() { while index < text.endIndex, text[index] == " " { index = text.index(after: index) } }
        while index < text.endIndex {
            skipSpaces()
            guard index < text.endIndex else { break }
            let nameStart = index
            while index < text.endIndex, text[index] != "=", text[index] != "," { index = text.index(after: index) }
            let name = String(text[nameStart..<index]).trimmingSpaces
            guard index < text.endIndex, text[index] == "=", !name.isEmpty else {
                throw AttributeListError(message: "attribute '\(name.prefix(40))' has no value")
            }
            index = text.index(after: index)
            if index < text.endIndex, text[index] == "\"" {
                index = text.index(after: index)
                let valueStart = index
                while index < text.endIndex, text[index] != "\"" { index = text.index(after: index) }
                guard index < text.endIndex else {
                    throw AttributeListError(message: "unterminated quoted value of \(name)")
                }
                result.append(Attribute(name: name, value: String(text[valueStart..<index]), quoted: true))
                index = text.index(after: index)
                skipSpaces()
            } else {
                let valueStart = index
                while index < text.endIndex, text[index] != "," { index = text.index(after: index) }
                result.append(
                    Attribute(name: name, value: String(text[valueStart..<index]).trimmingSpaces, quoted: false))
            }
            if index < text.endIndex {
                guard text[index] == "," else { throw AttributeListError(message: "expected ',' after \(name)") }
                index = text.index(after: index)
            }
        }
        attributes = result
    }

    public subscript(name: String) -> String? {
        attributes.first(where: { $0.name == name })?.value
    }

    public func integer(_ name: String) -> Int? { self[name].flatMap { Int($0) } }
    public func decimal(_ name: String) -> Double? { self[name].flatMap { Double($0) } }

    /// Sets (or adds) an attribute.
    public mutating func set(_ name: String, _ value: String, quoted: Bool) {
        if let i = attributes.firstIndex(where: { $0.name == name }) {
            attributes[i] = Attribute(name: name, value: value, quoted: quoted)
        } else {
            attributes.append(Attribute(name: name, value: value, quoted: quoted))
        }
    }

    /// Sets (or adds) a quoted attribute.
    public mutating func setQuoted(_ name: String, _ value: String) { set(name, value, quoted: true) }

    public mutating func remove(_ name: String) { attributes.removeAll { $0.name == name } }

    /// The attribute list as HLS text.
    public var text: String {
        attributes.map { $0.quoted ? "\($0.name)=\"\($0.value)\"" : "\($0.name)=\($0.value)" }.joined(separator: ",")
    }
}

public struct AttributeListError: Error, Sendable { public let message: String }

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" || s.last == "\r" { s.removeLast() }
        return String(s)
    }
}
