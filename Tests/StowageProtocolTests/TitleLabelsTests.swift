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

    @Test func namesAreOneLineOfBoundedLength() {
        #expect(TitleLabels.nameProblem("Big Buck Bunny — 4K") == nil)
        #expect(TitleLabels.nameProblem("") == nil)
        #expect(TitleLabels.nameProblem(String(repeating: "n", count: TitleLabels.maxNameLength)) == nil)
        #expect(TitleLabels.nameProblem(String(repeating: "n", count: 2 << 20)) != nil)
        #expect(TitleLabels.nameProblem("two\nlines") != nil)
        #expect(TitleLabels.nameProblem("bell\u{7}") != nil)
    }
}
