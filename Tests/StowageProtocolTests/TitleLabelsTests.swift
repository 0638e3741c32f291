import StowageProtocol
import Testing

/// The one rule for a title's id and name (submit's `--id` and `--name`, a bundle's `title.id` and
/// `title.displayName`).
@Suite struct TitleLabelsTests {
    @Test func idsThatCouldNameAPathOrBreakALineAreRefused() {
        for good in ["1001", "film-1", "Lecture 3: intro", String(repeating: "x", count: TitleLabels.maxIDLength)] {
            #expect(TitleLabels.idProblem(good) == nil, "\(good)")
        }
        for bad in [
            "", ".", "..", "a/b", "/", "x\ny", "x\r\ny", "x\u{0}y", "x\u{7f}y", "x\u{85}y", "x\u{2028}y",
            String(repeating: "i", count: 500_000),
        ] {
            #expect(TitleLabels.idProblem(bad) != nil, "\(bad.prefix(20).debugDescription)")
        }
    }

    /// An id with a token's shape could be read as the token of another title (`/titles/<token-or-id>/`,
    /// `stowctl status TOKEN` against `--id`): refused, in either case; every other length or a non-hex character
    /// is an id like any other.
    @Test func idsShapedLikeATokenAreRefusedNamingTheShape() throws {
        for token in [TitleToken.make(), "0123456789abcdef", "0123456789ABCDEF", "ffffffffffffffff"] {
            let why = try #require(TitleLabels.idProblem(token), "\(token)")
            #expect(why.contains("shape of a title token"), "\(why)")
            #expect(why.contains(token), "the message names the id: \(why)")
        }
        for fine in ["0123456789abcde", "0123456789abcdef0", "0123456789abcdeg", "film-0123456789ab", "2024"] {
            #expect(TitleLabels.idProblem(fine) == nil, "\(fine)")
        }
    }

    /// Tokens are 16 lowercase hex digits, and the made ones differ.
    @Test func tokensHaveTheShapeTheIdRuleRefuses() {
        let made = (0..<200).map { _ in TitleToken.make() }
        #expect(made.allSatisfy { $0.count == 16 && $0 == $0.lowercased() && TitleToken.hasShape($0) })
        #expect(Set(made).count == made.count)
    }

    @Test func namesAreOneLineOfBoundedLength() {
        #expect(TitleLabels.nameProblem("Big Buck Bunny — 4K") == nil)
        #expect(TitleLabels.nameProblem("") == nil)
        #expect(TitleLabels.nameProblem(String(repeating: "n", count: TitleLabels.maxNameLength)) == nil)
        #expect(TitleLabels.nameProblem(String(repeating: "n", count: 2 << 20)) != nil)
        #expect(TitleLabels.nameProblem("two\nlines") != nil)
        #expect(TitleLabels.nameProblem("bell\u{7}") != nil)
    }
}
