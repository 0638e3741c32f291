import Foundation
import StowageProtocol
import StowageSchedulerCore
import StowageSchedulerService
import Testing

/// The limits component through the service: what `stowctl limits` stores, the start flags over it, a refusal, a
/// reset, and a stored value the scheduler cannot read.
@Suite struct LimitsServiceTests {
    func limits(_ d: ServiceDriver, _ change: LimitsInfo? = nil) throws -> LimitsInfo {
        guard case .limits(let limits) = try d.request(.limits(change)) else { throw DriverError("no limits") }
        return limits
    }

    @Test func aStartFlagWinsOverTheStoredValueUntilTheOperatorSetsThatLimit() throws {
        let d = try ServiceDriver { $0.limitOverrides = LimitSettings(titles: 7, perHost: 5) }
        #expect(try limits(d).titles == 7)
        _ = try limits(d, LimitsInfo(titles: 3))
        let now = try limits(d)
        #expect(now.titles == 3, "what the operator just set wins over the flag")
        #expect(now.perHost == 5, "a flag the operator did not touch still holds")
        #expect(try d.store.setting(LimitsSettingKey.name)?.contains("\"titles\":3") == true)
    }

    @Test func aValueOutOfRangeIsRefusedNamingItAndNothingChanges() throws {
        let d = try ServiceDriver()
        let before = try limits(d)
        guard case .error(let error) = try d.request(.limits(LimitsInfo(titles: 5, perHost: 0))) else {
            throw DriverError("per-host 0 was taken")
        }
        #expect(error.code == .refused)
        #expect(error.message.contains("--per-host must be between 1 and 10000"))
        #expect(try limits(d) == before)
        #expect(try d.store.setting(LimitsSettingKey.name) == nil)
    }

    @Test func aResetForgetsTheStoredValuesAndTheStartFlags() throws {
        let d = try ServiceDriver { $0.limitOverrides = LimitSettings(titles: 7) }
        _ = try limits(d, LimitsInfo(perHost: 2, bandwidth: 1_000_000))
        var reset = LimitsInfo()
        reset.reset = true
        let after = try limits(d, reset)
        let defaults = LimitSettings.defaults
        #expect(after.titles == defaults.titles && after.perHost == defaults.perHost)
        #expect(after.bandwidth == 0, "no cap")
        #expect(try d.store.setting(LimitsSettingKey.name) == nil)
    }

    @Test func storedLimitsThatCannotBeReadLeaveTheDefaultsInForce() throws {
        let d = try ServiceDriver()
        try d.store.setSetting(LimitsSettingKey.name, "{not json")
        try d.restart()
        let l = try limits(d)
        #expect(l.titles == LimitSettings.defaults.titles)
        #expect(l.diskCushion == LimitSettings.defaults.diskCushion)
    }
}

/// The store key of the limits (as the scheduler stores them).
enum LimitsSettingKey {
    static let name = "limits"
}
