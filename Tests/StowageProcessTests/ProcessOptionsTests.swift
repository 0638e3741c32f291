import Logging
import StowageProcess
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

    @Test func durationsTakeAUnitOrSeconds() {
        #expect(parseDuration("90s") == 90)
        #expect(parseDuration("15m") == 900)
        #expect(parseDuration("2h") == 7_200)
        #expect(parseDuration("1d") == 86_400)
        #expect(parseDuration("42") == 42)
        #expect(parseDuration("-1s") == nil)
        #expect(parseDuration("soon") == nil)
    }
}
