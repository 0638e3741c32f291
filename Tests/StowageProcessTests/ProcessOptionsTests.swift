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

    @Test func sizesTakeBytesOrABinaryUnit() {
        #expect(parseByteSize("1048576") == 1_048_576)
        #expect(parseByteSize("500M") == 500 << 20)
        #expect(parseByteSize("2G") == 2 << 30)
        #expect(parseByteSize("2g") == 2 << 30)
        #expect(parseByteSize("1.5K") == 1_536)
        #expect(parseByteSize("4KB") == 4_096)
        #expect(parseByteSize("512B") == 512)
        #expect(parseByteSize("-1M") == nil)
        #expect(parseByteSize("lots") == nil)
        #expect(parseByteSize("9000000T") == nil)
    }
}
