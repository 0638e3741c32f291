import StowageProtocol

/// Why a title could not be written as one file, with its code and a message a person can act on: ffmpeg missing,
/// a failed mux (its own words quoted), a full disk, an offline copy that cannot be read.
public struct RemuxError: Error, CodedError, CustomStringConvertible {
    public let code: ErrorCode
    public let message: String
    public var description: String { message }

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    static func ffmpegMissing(_ tool: String) -> Self {
        Self(.io, "\(tool) is not installed or not on PATH: install ffmpeg (Debian: apt-get install ffmpeg)")
    }
}
