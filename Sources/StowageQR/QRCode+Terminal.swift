extension QRCode {
    /// The symbol as lines of text, two module rows per line with Unicode half blocks, light modules drawn (a
    /// terminal's text is light on dark, as `qrencode -t UTF8` assumes), with a light quiet zone of `quietZone`
    /// modules around it (a scanner finds the symbol by that margin).
    public func terminalText(quietZone: Int = 2) -> String {
        let side = width + 2 * quietZone
        var lines: [String] = []
        var y = 0
        while y < side {
            var line = ""
            for x in 0..<side {
                let top = !isDark(x: x - quietZone, y: y - quietZone)
                let bottom = y + 1 < side ? !isDark(x: x - quietZone, y: y + 1 - quietZone) : false
                line += Self.block(top: top, bottom: bottom)
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n")
    }

    /// The character for two stacked modules, `true` = light (drawn).
    static func block(top: Bool, bottom: Bool) -> String {
        switch (top, bottom) {
        case (true, true): "\u{2588}"
        case (true, false): "\u{2580}"
        case (false, true): "\u{2584}"
        case (false, false): " "
        }
    }

    /// Reads ``terminalText(quietZone:)`` back into its modules (the quiet zone included): what a test decodes to
    /// check what `stowctl` printed.
    public static func modules(ofTerminalText text: String) -> QRCode? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        guard let side = lines.first?.count, side > 0, lines.allSatisfy({ $0.count == side }) else { return nil }
        var rows: [[Bool]] = []
        for line in lines {
            var top: [Bool] = [], bottom: [Bool] = []
            for c in line {
                switch c {
                case "\u{2588}": (top, bottom) = (top + [false], bottom + [false])
                case "\u{2580}": (top, bottom) = (top + [false], bottom + [true])
                case "\u{2584}": (top, bottom) = (top + [true], bottom + [false])
                case " ": (top, bottom) = (top + [true], bottom + [true])
                default: return nil
                }
            }
            rows.append(top)
            rows.append(bottom)
        }
        rows = Array(rows.prefix(side))
        guard rows.count == side else { return nil }
        return QRCode(width: side, modules: rows.flatMap { $0 })
    }
}
