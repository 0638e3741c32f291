/// A title's token: 16 lowercase hex digits (64 random bits), made by the scheduler for every title it takes in
/// (submit, preload, a catalogue entry, an import). The shape is fixed here so that an id of the operator's
/// choosing (``TitleLabels``) can be refused when it has it: the gateway's `/titles/<token-or-id>/` and
/// `stowctl`'s TOKEN-or-`--id` then never name two titles with one word.
public enum TitleToken {
    /// Random bytes in a token.
    public static let byteCount = 8

    /// A new token.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.encode((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Whether `text` has a token's shape: 16 hex digits, in either case (an upper-case one reads as a token too).
    public static func hasShape(_ text: some StringProtocol) -> Bool {
        Hex.isHex(text, bytes: byteCount)
    }
}
