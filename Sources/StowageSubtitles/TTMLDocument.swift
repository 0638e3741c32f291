import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The cues of a TTML document (W3C TTML2, the IMSC text profile packagers write): each `<p>` with a time is a
/// cue. Its text is kept: `<span>`s give their text, `<br/>` a line break, entities are decoded and whitespace is
/// collapsed as TTML's default `xml:space` says; styling and layout (which SRT cannot carry) are dropped. Times:
/// clock times (`hh:mm:ss.fff`, `hh:mm:ss:ff` frames) and offsets (`h`, `m`, `s`, `ms`, `f`, `t` ticks), `begin`
/// relative to the parent's, `end` or `dur`; `offset` is added (a sample's place on the track, 0 for a sidecar
/// or for the absolute times `stpp` samples carry).
enum TTMLDocument {
    static func cues(_ bytes: [UInt8], offset: Double = 0) throws(SubtitleError) -> [SubtitleCue] {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw SubtitleError(.malformed, file: "", "the TTML document is not UTF-8")
        }
        let data = Data(bytes)
        // No entity expansion (billion laughs): TTML needs none.
        if data.range(of: Data("<!ENTITY".utf8)) != nil {
            throw SubtitleError(.malformed, file: "", "the TTML document declares entities")
        }
        let reader = TTMLReader(offset: offset)
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.delegate = reader
        guard parser.parse(), reader.problem == nil else {
            let line = parser.lineNumber
            let why = reader.problem ?? parser.parserError.map { "\($0.localizedDescription)" } ?? "unreadable"
            throw SubtitleError(.malformed, file: "", "TTML line \(line): \(why)")
        }
        guard reader.sawRoot, reader.closedRoot else {
            throw SubtitleError(
                .malformed, file: "",
                reader.sawRoot
                    ? "the TTML document ends before </tt>" : "no <tt> root element: this is no TTML document")
        }
        return reader.cues
    }
}

/// The SAX side of ``TTMLDocument``: a stack of timed elements, and the text of the `<p>` being read.
private final class TTMLReader: NSObject, XMLParserDelegate {
    var cues: [SubtitleCue] = []
    var problem: String?
    var sawRoot = false
    var closedRoot = false
    private let offset: Double
    /// The begin of each open element (seconds, absolute), to resolve a child's relative begin.
    private var begins: [Double] = []
    private var frameRate = 30.0, tickRate = 1.0
    /// The `<p>` being read: its times and text.
    private var paragraph: (start: Double, end: Double, text: String)?
    private var depthInParagraph = 0

    init(offset: Double) { self.offset = offset }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let value = { (local: String) in
            attributes[local] ?? attributes.first(where: { $0.key.hasSuffix(":" + local) })?.value
        }
        if name == "tt" {
            sawRoot = true
            if let rate = value("frameRate").flatMap(Double.init), rate > 0 { frameRate = rate }
            if let rate = value("tickRate").flatMap(Double.init), rate > 0 { tickRate = rate }
        }
        let parentBegin = begins.last ?? offset
        var begin = parentBegin
        if let text = value("begin") {
            guard let seconds = time(text) else {
                return fail(parser, "begin=\"\(text.prefix(40))\" is no TTML time")
            }
            begin = parentBegin + seconds
        }
        begins.append(begin)
        if paragraph != nil {
            depthInParagraph += 1
            if name == "br" { paragraph?.text += "\n" }
            return
        }
        guard name == "p" else { return }
        var end = Double.infinity
        if let text = value("end") {
            guard let seconds = time(text) else { return fail(parser, "end=\"\(text.prefix(40))\" is no TTML time") }
            end = parentBegin + seconds
        } else if let text = value("dur") {
            guard let seconds = time(text) else { return fail(parser, "dur=\"\(text.prefix(40))\" is no TTML time") }
            end = begin + seconds
        }
        paragraph = (begin, end, "")
        depthInParagraph = 0
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if !begins.isEmpty { begins.removeLast() }
        if name == "tt", begins.isEmpty { closedRoot = true }
        guard paragraph != nil else { return }
        if depthInParagraph > 0 {
            depthInParagraph -= 1
            return
        }
        guard let p = paragraph else { return }
        paragraph = nil
        let lines = p.text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
        }
        let text = lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return }
        guard p.end.isFinite else { return fail(parser, "a <p> has no end or dur") }
        cues.append(SubtitleCue(start: p.start, end: p.end, text: Entities.escape(text)))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        // Line breaks in the source are white space in TTML; only <br/> breaks a line.
        paragraph?.text += string.replacingOccurrences(of: "\n", with: " ")
    }

    /// Records the first problem and stops the parse.
    private func fail(_ parser: XMLParser, _ message: String) {
        if problem == nil { problem = message }
        parser.abortParsing()
    }

    /// A TTML time expression in seconds, or nil.
    private func time(_ text: String) -> Double? {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.contains(":") {
            let parts = t.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3 || parts.count == 4, let h = Double(parts[0]), let m = Double(parts[1]),
                let s = Double(parts[2]), h >= 0, m >= 0, s >= 0
            else { return nil }
            var seconds = h * 3600 + m * 60 + s
            if parts.count == 4 {
                guard let frames = Double(parts[3]), frames >= 0 else { return nil }
                seconds += frames / frameRate
            }
            return seconds
        }
        let units: [(String, Double)] = [
            ("ms", 0.001), ("h", 3600), ("m", 60), ("s", 1), ("f", 1 / frameRate),
            ("t", 1 / tickRate),
        ]
        for (unit, scale) in units where t.hasSuffix(unit) {
            guard let value = Double(t.dropLast(unit.count)), value >= 0, value.isFinite else { return nil }
            return value * scale
        }
        return nil
    }
}
