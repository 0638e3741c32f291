import Logging
import StowageProcess
import StowageProtocol
import Testing

@Suite("Process options")
struct ProcessOptionsTests {
    @Test func logOptionsParseAsTheEnvironmentAlwaysDid() {
        #expect(LogLevel(argument: "DEBUG") == .debug)
        #expect(LogLevel(argument: "critical")?.level == .critical)
        #expect(LogLevel(argument: "loud") == nil)
        #expect(LogFormat(argument: "Json") == .json)
        #expect(LogFormat(argument: "xml") == nil)
    }

    /// The flag's parser is the variable's: argument-parser's `init?(argument:)` and `init(validating:)` agree.
    @Test func theFlagAndTheVariableReadAValueAlike() throws {
        #expect(ByteSize(argument: "500M")?.bytes == 500 << 20)
        #expect(try ByteSize(validating: "500M").bytes == 500 << 20)
        #expect(ByteRate(argument: "2M/s")?.bytesPerSecond == 2 << 20)
        #expect(TimeSpan(argument: "15m")?.seconds == 900)
        #expect(TimeSpan(argument: "15") == nil, "a duration needs its unit")
        #expect(SecondsOrSpan(argument: "15")?.seconds == 15, "where seconds were always documented")
        #expect(SecondsOrSpan(argument: "2m")?.seconds == 120)
        #expect(throws: (any Error).self) { try Int(validating: "abc") }
        #expect(ByteSize(bytes: 1 << 30).defaultValueDescription == "1G")
        #expect(TimeSpan(seconds: 86_400).defaultValueDescription == "1d")
    }
}
