import ArgumentParser
import Foundation
import StowageProtocol

/// A value an option takes, parsed one way whether it comes from the flag or from `STOWAGE_<OPTION>`.
///
/// Each type's `init?(argument:)` (what argument-parser calls for the flag) is `try? init(validating:)` (Int's and
/// String's are argument-parser's own, which read alike), so the flag and the variable cannot read a value
/// differently; ``EnvironmentRule`` calls `init(validating:)` to say *why* a variable's value was refused.
public protocol OptionValue: ExpressibleByArgument, Sendable {
    /// Parses `text`, or throws an error whose description says what is wrong and what is accepted.
    init(validating text: String) throws
}

extension OptionValue {
    /// `@Option(transform: ByteSize.parsing)`: the flag is parsed by `init(validating:)` itself, so argument-parser's
    /// message for a bad flag carries the reason (`The value '3' is invalid for '--rental <duration>': '3' needs a
    /// unit …`) as the variable's does; `init?(argument:)` alone could only say "invalid".
    @Sendable public static func parsing(_ text: String) throws -> Self { try Self(validating: text) }
}

/// A reason for a refused value, worded for a person.
struct OptionValueError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `--quota SIZE`, `--disk-cushion SIZE`: bytes with binary K, M, G, T.
extension ByteSize: OptionValue {
    public init?(argument: String) { try? self.init(validating: argument) }
    public init(validating text: String) throws { try self.init(parsing: text) }
    public var defaultValueDescription: String { description }
}

/// `--bandwidth RATE`, `--scrub-budget RATE`, `--min-body-rate RATE`, `--throttle-bps RATE`.
extension ByteRate: OptionValue {
    public init?(argument: String) { try? self.init(validating: argument) }
    public init(validating text: String) throws { try self.init(parsing: text) }
    public var defaultValueDescription: String { description }
}

/// A duration that needs its unit (`90s`, `15m`, `24h`, `30d`): `--give-up-after`, `--rental` and the others.
extension TimeSpan: OptionValue {
    public init?(argument: String) { try? self.init(validating: argument) }
    public init(validating text: String) throws { try self.init(parsing: text) }
    public var defaultValueDescription: String { description }
}

/// A duration where a bare number is seconds, for the options whose documentation has always said seconds
/// (`--auto-renew-before`, `--scrub-interval`, `--idle-timeout`, `--stall-timeout`, `--sign-urls`).
public struct SecondsOrSpan: OptionValue, Hashable, CustomStringConvertible {
    public let span: TimeSpan
    public var seconds: Double { span.seconds }

    public init(seconds: Double) { span = TimeSpan(seconds: seconds) }
    public init?(argument: String) { try? self.init(validating: argument) }
    public init(validating text: String) throws { span = try TimeSpan(parsing: text, bareSeconds: true) }
    public var description: String { span.description }
    public var defaultValueDescription: String { description }
}

/// Whole numbers (`--titles N`, `--concurrency N`).
extension Int: OptionValue {
    public init(validating text: String) throws {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw OptionValueError("'\(text.prefix(80))' is not a whole number")
        }
        self = value
    }
}

/// Text options (paths, URLs, lists); what makes one bad is checked by the option (``EnvironmentRule``'s `check`).
extension String: OptionValue {
    public init(validating text: String) throws { self = text }
}

extension LogLevel: OptionValue {
    public init?(argument: String) { try? self.init(validating: argument) }
    public init(validating text: String) throws {
        guard let level = LogLevel(rawValue: text.lowercased()) else {
            throw OptionValueError("'\(text.prefix(80))' is not one of \(Self.allValueStrings.joined(separator: ", "))")
        }
        self = level
    }
}

extension LogFormat: OptionValue {
    public init?(argument: String) { try? self.init(validating: argument) }
    public init(validating text: String) throws {
        guard let format = LogFormat(rawValue: text.lowercased()) else {
            throw OptionValueError("'\(text.prefix(80))' is not text or json")
        }
        self = format
    }
}

extension FillSchedule: OptionValue {
    public init?(argument: String) { try? self.init(validating: argument) }
    public init(validating text: String) throws { try self.init(parsing: text) }
}

extension BandwidthSchedule: OptionValue {
    public init?(argument: String) { try? self.init(validating: argument) }
    public init(validating text: String) throws { try self.init(parsing: text) }
}

/// `submit --range START-END`, `estimate --range`.
extension ClipRange: OptionValue {
    public init?(argument: String) { try? self.init(validating: argument) }
    public init(validating text: String) throws { try self.init(parsing: text) }
    public var defaultValueDescription: String { description }
}

/// `submit --file mp4|mkv`.
extension SingleFileFormat: OptionValue {
    public init?(argument: String) { try? self.init(validating: argument) }
    public init(validating text: String) throws {
        guard let format = SingleFileFormat(rawValue: text.lowercased()) else {
            throw OptionValueError("'\(text.prefix(80))' is not mp4 or mkv")
        }
        self = format
    }
    public var defaultValueDescription: String { rawValue }
}
