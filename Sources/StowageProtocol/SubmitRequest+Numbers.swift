/// The numbers of a submit, checked against ``OutsideNumbers`` where the scheduler reads the request (a client's
/// frame; stowctl checks the same before sending): the selectors subtract from a bit rate, and terms and a
/// recording's duration become deadlines.
extension SubmitRequest {
    /// The first number out of range, or nil.
    public var numberProblem: NumberRangeError? {
        do throws(NumberRangeError) {
            try selection.checkNumbers()
            if let terms {
                for (field, value) in [
                    ("rental", terms.rentalSeconds), ("play-duration", terms.playDurationSeconds),
                    ("play-time", terms.playTimeSeconds),
                ] {
                    guard let value else { continue }
                    guard value.isFinite else { throw OutsideNumbers.seconds(field).error("\(value)") }
                    _ = try OutsideNumbers.seconds(field).check(value)
                }
                _ = try OutsideNumber("plays", 0...Self.maxPlays).checkIfPresent(terms.playCount)
            }
            if let seconds = record?.durationSeconds {
                guard seconds.isFinite else { throw OutsideNumbers.seconds("duration").error("\(seconds)") }
                _ = try OutsideNumbers.seconds("duration").check(seconds)
            }
            return nil
        } catch {
            return error
        }
    }

    /// The most plays a license may grant.
    public static let maxPlays = 1_000_000_000

    /// The priorities a title may have (`--priority`, a catalogue's number): the scheduler adds and subtracts 1,000
    /// around them (verify, renew, scrub), so an unbounded number from a catalogue or a command line would overflow.
    public static let priorityRange = -1_000_000...1_000_000
}

extension Selection {
    /// `bitrate`, `maxHeight` and `channels` within range.
    public func checkNumbers() throws(NumberRangeError) {
        _ = try OutsideNumbers.bitsPerSecond("bitrate").checkIfPresent(bitrate)
        _ = try Self.height.checkIfPresent(maxHeight)
        _ = try Self.channelCount.checkIfPresent(channels)
    }

    /// The range of `--channels` (and of a channel count read from a playlist or MPD).
    public static let channelCount = OutsideNumber("channels", 1...64, unit: "channels")

    /// The range of a height in pixels (`--max-height`, `RESOLUTION`).
    public static let height = OutsideNumber("max-height", 0...1_000_000, unit: "pixels")
}
