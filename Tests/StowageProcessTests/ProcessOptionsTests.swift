import Foundation
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

/// `EnvironmentRule`: the flag, else `STOWAGE_<OPTION>` parsed as the flag's type; a bad value names the variable.
/// Each test uses a variable of its own, as tests run in parallel in one process.
@Suite("Environment rule")
struct EnvironmentRuleUnitTests {
    @Test func theFlagWinsAndTheVariableIsParsedAsTheFlagIs() throws {
        setenv("STOWAGE_UNIT_QUOTA_A", "2G", 1)
        defer { unsetenv("STOWAGE_UNIT_QUOTA_A") }
        #expect(try EnvironmentRule.resolve(ByteSize?.none, "unit-quota-a")?.bytes == 2 << 30)
        #expect(try EnvironmentRule.resolve(ByteSize(bytes: 5), "unit-quota-a")?.bytes == 5, "the flag wins")
        #expect(try EnvironmentRule.resolve(ByteSize?.none, "unit-quota-unset") == nil)
    }

    @Test func aBadVariableIsAnErrorNamingIt() {
        setenv("STOWAGE_UNIT_TITLES_B", "abc", 1)
        defer { unsetenv("STOWAGE_UNIT_TITLES_B") }
        #expect {
            try EnvironmentRule.resolve(Int?.none, "unit-titles-b")
        } throws: { "\($0)".contains("STOWAGE_UNIT_TITLES_B") && "\($0)".contains("whole number") }
        setenv("STOWAGE_UNIT_SPAN_B", "3", 1)
        defer { unsetenv("STOWAGE_UNIT_SPAN_B") }
        #expect {
            try EnvironmentRule.resolve(TimeSpan?.none, "unit-span-b")
        } throws: { "\($0)".contains("STOWAGE_UNIT_SPAN_B='3'") && "\($0)".contains("needs a unit") }
    }

    @Test func theCheckAppliesToTheFlagAndToTheVariable() {
        setenv("STOWAGE_UNIT_COUNT_C", "0", 1)
        defer { unsetenv("STOWAGE_UNIT_COUNT_C") }
        let positive = { (n: Int) in n > 0 ? nil : "must be at least 1" }
        #expect { try EnvironmentRule.resolve(Int?.none, "unit-count-c", check: positive) } throws: {
            "\($0)".contains("STOWAGE_UNIT_COUNT_C='0': must be at least 1")
        }
        #expect { try EnvironmentRule.resolve(Optional(0), "unit-count-c", check: positive) } throws: {
            "\($0)".contains("--unit-count-c 0: must be at least 1")
        }
    }

    @Test func aSecretIsNeverEchoedAndEmptyIsUnset() throws {
        setenv("STOWAGE_UNIT_SECRET_D", "   ", 1)
        defer { unsetenv("STOWAGE_UNIT_SECRET_D") }
        let blank = { (s: String) in s.trimmingCharacters(in: .whitespaces).isEmpty ? "holds only spaces" : nil }
        #expect { try EnvironmentRule.resolve(String?.none, "unit-secret-d", secret: true, check: blank) } throws: {
            "\($0)" == "STOWAGE_UNIT_SECRET_D: holds only spaces"
        }
        setenv("STOWAGE_UNIT_EMPTY_D", "", 1)
        defer { unsetenv("STOWAGE_UNIT_EMPTY_D") }
        #expect(try EnvironmentRule.resolve(Int?.none, "unit-empty-d") == nil)
    }

    @Test func listsAndSwitches() throws {
        setenv("STOWAGE_UNIT_LIST_E", "http://a/ http://b/", 1)
        defer { unsetenv("STOWAGE_UNIT_LIST_E") }
        #expect(try EnvironmentRule.resolve(list: [String](), "unit-list-e", separator: \.isWhitespace).count == 2)
        #expect(try EnvironmentRule.resolve(list: ["x"], "unit-list-e", separator: \.isWhitespace) == ["x"])
        setenv("STOWAGE_UNIT_SWITCH_E", "yes", 1)
        defer { unsetenv("STOWAGE_UNIT_SWITCH_E") }
        #expect(try EnvironmentRule.resolve(flag: false, "unit-switch-e"))
        setenv("STOWAGE_UNIT_SWITCH_E", "maybe", 1)
        #expect(throws: (any Error).self) { try EnvironmentRule.resolve(flag: false, "unit-switch-e") }
    }
}
