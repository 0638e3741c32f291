import Crypto
import Foundation
import StowageProtocol

/// The pairing codes the scheduler has given (`devices add NAME --pair`): each kept only as its SHA-256, with its
/// deadline on the monotonic clock, and burnt by its first redemption. A pure value over `now`, so its expiry and
/// single use are tested on a made-up clock.
///
/// Codes live in memory: a scheduler restart cancels those outstanding (fail closed; the operator makes a new
/// one). A used or expired code is remembered for ``rememberFor`` seconds so its second use is told apart from a
/// code that never was; at most ``maxCodes`` are kept (the oldest go first).
struct PairingCodes {
    /// How long a code is valid: ten minutes.
    static let lifetime: Double = 600
    /// How long a code is remembered after it was given (to say "used" or "expired" rather than "unknown").
    static let rememberFor: Double = 3600
    /// Most codes kept at once.
    static let maxCodes = 1000

    /// What a redemption found.
    enum Outcome: Equatable {
        /// Good: the code is burnt now.
        case device(String)
        case used(device: String)
        case expired(device: String, wallDeadline: Double)
        case canceled(device: String)
        case unknown
    }

    private struct Entry {
        var device: String
        var givenAt: Double
        var deadline: Double
        /// The deadline on the wall clock, only to say when it was (never compared).
        var wallDeadline: Double
        var used = false
        var canceled = false
    }

    private var entries: [Data: Entry] = [:]

    /// A new code for `device` at monotonic `now` (`wallNow`: unix seconds, for its expiry shown to people).
    mutating func issue(device: String, now: Double, wallNow: Double) -> (code: String, wallDeadline: Double) {
        prune(now: now)
        var bytes = [UInt8](repeating: 0, count: 16)  // 128 bits from the system's CSPRNG
        var generator = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
        let code = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let wallDeadline = wallNow + Self.lifetime
        entries[Self.digest(code)] = Entry(
            device: device, givenAt: now, deadline: now + Self.lifetime, wallDeadline: wallDeadline)
        return (code, wallDeadline)
    }

    /// Redeems `code` at monotonic `now`: a valid code is burnt before this returns.
    mutating func redeem(_ code: String, now: Double) -> Outcome {
        prune(now: now)
        let key = Self.digest(code)
        guard var entry = entries[key] else { return .unknown }
        if entry.canceled { return .canceled(device: entry.device) }
        if entry.used { return .used(device: entry.device) }
        guard now < entry.deadline else { return .expired(device: entry.device, wallDeadline: entry.wallDeadline) }
        entry.used = true
        entries[key] = entry
        return .device(entry.device)
    }

    /// The device was revoked: its codes stop working.
    mutating func cancel(device: String) {
        for (key, entry) in entries where entry.device == device { entries[key]?.canceled = true }
    }

    /// Codes kept (used, expired or not).
    var count: Int { entries.count }

    private mutating func prune(now: Double) {
        entries = entries.filter { now - $0.value.givenAt < Self.rememberFor }
        guard entries.count >= Self.maxCodes else { return }
        let excess = entries.count - Self.maxCodes + 1
        for (key, _) in entries.sorted(by: { $0.value.givenAt < $1.value.givenAt }).prefix(excess) {
            entries[key] = nil
        }
    }

    private static func digest(_ code: String) -> Data { Data(SHA256.hash(data: Data(code.utf8))) }
}
