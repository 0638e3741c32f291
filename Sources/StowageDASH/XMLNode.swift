import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One element of a parsed XML document: just what the MPD reader needs.
struct XMLNode: Sendable, Equatable {
    /// The element's name without its namespace prefix (`pssh` for `cenc:pssh`).
    var name: String
    /// The namespace URI the element's prefix (or the default namespace) is bound to.
    var namespace: String?
    /// Attributes by their name as written (`cenc:default_KID`), namespace declarations left out.
    var attributes: [String: String]
    var children: [XMLNode]
    /// Character data directly inside the element, trimmed.
    var text: String

    /// The attribute called `local` (with any prefix), or nil.
    func attribute(_ local: String) -> String? {
        if let value = attributes[local] { return value }
        return attributes.first(where: { key, _ in
            key.hasSuffix(":" + local) && !key.hasPrefix("xmlns:")
        })?.value
    }

    /// Direct children called `local`.
    func children(_ local: String) -> [XMLNode] { children.filter { $0.name == local } }

    /// The first direct child called `local`.
    func child(_ local: String) -> XMLNode? { children.first(where: { $0.name == local }) }

    /// Parses `data` into its root element. Documents that declare entities are refused (no expansion attacks).
    static func parse(_ data: Data, maxElements: Int = 2_000_000) throws(DASHError) -> XMLNode {
        if data.range(of: Data("<!ENTITY".utf8)) != nil {
            throw DASHError(.malformed, "XML entity declarations are not accepted in an MPD")
        }
        // Foundation's XMLParser traps on a name that is not UTF-8 (`tim\u{E5}scale` as one Latin-1 byte, found by
        // fuzzing): the bytes are checked before it sees them.
        guard String(bytes: data, encoding: .utf8) != nil else {
            throw DASHError(.malformed, "the MPD is not UTF-8 text")
        }
        // It also dereferences a processing instruction's missing data (`<?xmlfoo?>`, found by fuzzing): none is
        // accepted but the XML declaration at the start.
        if let problem = processingInstructionProblem(data) { throw DASHError(.malformed, problem) }
        let builder = TreeBuilder(maxElements: maxElements)
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let ok = parser.parse()
        if builder.tooMany {
            throw DASHError(.tooLarge, "the MPD has more than \(maxElements) elements")
        }
        guard ok, let root = builder.root else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "no root element"
            throw DASHError(
                .malformed, "not well-formed XML (line \(parser.lineNumber)): \(reason.prefix(120))")
        }
        return root
    }
}

/// Why `data` holds a processing instruction other than a leading `<?xml …?>` declaration, or nil.
private func processingInstructionProblem(_ data: Data) -> String? {
    let bytes = [UInt8](data)
    var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
    var i = 0
    while i + 1 < bytes.count {
        if bytes[i] == UInt8(ascii: "<"), bytes[i + 1] == UInt8(ascii: "?") {
            let declaration =
                i == start && bytes.count > i + 6 && Array(bytes[(i + 2)..<(i + 5)]) == Array("xml".utf8)
                && [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i + 5])
            if !declaration { return "processing instructions are not accepted in an MPD (byte \(i))" }
        }
        i += 1
    }
    return nil
}

/// Builds the tree from the parser's events, resolving namespace prefixes itself.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    private struct Open {
        var node: XMLNode
        var prefix: String?
        var declarations: [String: String]
    }

    private var stack: [Open] = []
    private(set) var root: XMLNode?
    private(set) var tooMany = false
    private var count = 0
    private let maxElements: Int

    init(maxElements: Int) {
        self.maxElements = maxElements
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        count += 1
        if count > maxElements {
            tooMany = true
            parser.abortParsing()
            return
        }
        var declarations: [String: String] = [:]
        var attributes: [String: String] = [:]
        for (key, value) in attributeDict {
            if key == "xmlns" {
                declarations[""] = value
            } else if key.hasPrefix("xmlns:") {
                declarations[String(key.dropFirst(6))] = value
            } else {
                attributes[key] = value
            }
        }
        let parts = elementName.split(separator: ":", maxSplits: 1).map(String.init)
        let prefix = parts.count == 2 ? parts[0] : ""
        let local = parts.count == 2 ? parts[1] : elementName
        let namespace = declarations[prefix] ?? stack.reversed().lazy.compactMap { $0.declarations[prefix] }.first
        let node = XMLNode(name: local, namespace: namespace, attributes: attributes, children: [], text: "")
        stack.append(Open(node: node, prefix: prefix, declarations: declarations))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].node.text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].node.text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        guard var open = stack.popLast() else { return }
        open.node.text = open.node.text.trimmingCharacters(in: .whitespacesAndNewlines)
        if stack.isEmpty {
            root = open.node
        } else {
            stack[stack.count - 1].node.children.append(open.node)
        }
    }
}
