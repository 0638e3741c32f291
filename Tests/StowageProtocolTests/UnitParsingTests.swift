import StowageProtocol
import Testing

/// Sizes, rates and durations as operators write them: one reading per spelling, everywhere.
@Suite("Units")
struct UnitParsingTests {
    @Test(
        arguments: [
            ("1048576", 1_048_576), ("0", 0), ("512B", 512), ("500M", 500 << 20), ("500MB", 500 << 20),
            ("500MiB", 500 << 20), ("500m", 500 << 20), ("2G", 2 << 30), ("2g", 2 << 30), ("2GiB", 2 << 30),
            ("1.5K", 1_536), ("4KB", 4_096), ("4kB", 4_096), ("1T", 1 << 40), ("1.5T", 3 << 39), (" 2K ", 2_048),
            ("1024T", 1 << 50),
        ] as [(String, Int64)])
    func sizesAreBinaryInEverySpelling(_ text: String, _ bytes: Int64) throws {
        #expect(try ByteSize(parsing: text).bytes == bytes)
    }

    @Test(
        arguments: [
            ("", UnitError.Code.empty), ("   ", .empty), ("-1M", .negative), ("-0", .negative), ("lots", .malformed),
            ("12Q", .malformed), ("1.5", .malformed), ("1..5K", .malformed), (".5K", .malformed), ("5.K", .malformed),
            ("1e3", .malformed), ("0x10", .malformed), ("+5", .malformed), ("5 K", .malformed), ("5KK", .malformed),
            ("500Mb", .bits), ("4kb", .bits), ("2Mbit", .bits), ("1025T", .tooLarge), ("9000000T", .tooLarge),
            ("99999999999999999999", .tooLarge), ("9223372036854775807K", .tooLarge), ("1P", .malformed),
        ] as [(String, UnitError.Code)])
    func sizesRefuseWhatIsNoSize(_ text: String, _ code: UnitError.Code) {
        #expect { try ByteSize(parsing: text) } throws: { ($0 as? UnitError)?.code == code }
    }

    @Test func ratesReadAsSizesPerSecond() throws {
        #expect(try ByteRate(parsing: "2M").bytesPerSecond == 2_097_152)
        #expect(try ByteRate(parsing: "2M/s").bytesPerSecond == 2_097_152)
        #expect(try ByteRate(parsing: "2MiB/s").bytesPerSecond == 2_097_152)
        #expect(try ByteRate(parsing: "100000").bytesPerSecond == 100_000)
        #expect(try ByteRate(parsing: "0").bytesPerSecond == 0)
        #expect(ByteRate(bytesPerSecond: 3 << 20).description == "3M/s")
        for (text, code) in [
            ("fast", UnitError.Code.malformed), ("-5/s", .negative), ("/s", .empty),
            ("10Mb/s", .bits), ("2P/s", .malformed), ("2048T/s", .tooLarge),
        ] as [(String, UnitError.Code)] {
            #expect(throws: UnitError.self, "\(text)") { try ByteRate(parsing: text) }
            #expect((try? ByteRate(parsing: text)) == nil)
            do { _ = try ByteRate(parsing: text) } catch { #expect(error.code == code, "\(text): \(error)") }
        }
    }

    @Test func durationsNeedAUnitUnlessSecondsWereAlwaysMeant() throws {
        #expect(try TimeSpan(parsing: "90s").seconds == 90)
        #expect(try TimeSpan(parsing: "15m").seconds == 900)
        #expect(try TimeSpan(parsing: "1.5h").seconds == 5_400)
        #expect(try TimeSpan(parsing: "30d").seconds == 2_592_000)
        #expect(try TimeSpan(parsing: "0s").seconds == 0)
        #expect(try TimeSpan(parsing: "90", bareSeconds: true).seconds == 90)
        #expect(try TimeSpan(parsing: "36500d").seconds == 3_153_600_000)
        for (text, code) in [
            ("90", UnitError.Code.missingUnit), ("", .empty), (" ", .empty), ("-1s", .negative), ("soon", .malformed),
            ("15M", .malformed), ("2w", .malformed), ("1e3s", .malformed), ("s", .malformed), ("1..5h", .malformed),
            ("36600d", .tooLarge), ("99999999999999999999999999s", .tooLarge),
        ] as [(String, UnitError.Code)] {
            do {
                _ = try TimeSpan(parsing: text)
                Issue.record("'\(text)' was taken")
            } catch { #expect(error.code == code, "\(text): \(error)") }
        }
        #expect(throws: UnitError.self) { try TimeSpan(parsing: "soon", bareSeconds: true) }
        #expect(throws: UnitError.self) { try TimeSpan(parsing: "-5", bareSeconds: true) }
    }

    @Test func messagesSayWhatIsAccepted() {
        do { _ = try TimeSpan(parsing: "3") } catch {
            #expect(error.description.contains("needs a unit") && error.description.contains("90s, 15m, 24h, 30d"))
        }
        do { _ = try ByteSize(parsing: "12Q") } catch {
            #expect(error.description.contains("1K = 1024 bytes"))
        }
    }

    @Test func descriptionsAreTheShortestExactSpelling() {
        #expect(ByteSize(bytes: 1 << 30).description == "1G")
        #expect(ByteSize(bytes: 1_536).description == "1536")
        #expect(ByteSize(bytes: 3 << 19).description == "1536K")
        #expect(TimeSpan(seconds: 900).description == "15m")
        #expect(TimeSpan(seconds: 90).description == "90s")
        #expect(TimeSpan(seconds: 86_400).description == "1d")
        #expect(TimeSpan(seconds: 1.5).description == "1.5s")
    }
}
