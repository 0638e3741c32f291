import Foundation

/// Encodes and decodes Stowage messages to and from ZeroMQ frames.
///
/// A message is exactly three frames: `[version, command, body]`, where the body is UTF-8 JSON.
/// A ROUTER socket sees one more frame in front (the peer's identity); callers strip it before decoding.
public enum FrameCodec {
    /// Bodies larger than this are refused before JSON parsing.
    public static let maxBodyBytes = Int(WireProtocol.maxMessageBytes)

    /// Encodes a command and its body.
    public static func encode<Body: Encodable>(_ command: Command, _ body: Body) -> [[UInt8]] {
        let data = (try? encoder.encode(body)) ?? Data("{}".utf8)
        return [Array(WireProtocol.version.utf8), Array(command.rawValue.utf8), Array(data)]
    }

    /// Encodes a command with an empty body.
    public static func encode(_ command: Command) -> [[UInt8]] {
        [Array(WireProtocol.version.utf8), Array(command.rawValue.utf8), Array("{}".utf8)]
    }

    /// Validates the frame layout, version and command. Never traps on what a peer sent.
    public static func decode(_ frames: [[UInt8]]) throws(ProtocolError) -> Envelope {
        guard frames.count == 3 else {
            throw ProtocolError(.frameCount, "expected 3 frames [version, command, body], got \(frames.count)")
        }
        guard frames[0] == Array(WireProtocol.version.utf8) else {
            throw ProtocolError(.version, "expected protocol \(WireProtocol.version), got \(printable(frames[0]))")
        }
        guard let name = String(validating: frames[1], as: UTF8.self), let command = Command(rawValue: name) else {
            throw ProtocolError(.unknownCommand, "unknown command \(printable(frames[1]))")
        }
        guard frames[2].count <= maxBodyBytes else {
            throw ProtocolError(.tooLarge, "body of \(frames[2].count) bytes exceeds \(maxBodyBytes)")
        }
        return Envelope(command: command, body: frames[2])
    }

    /// Decodes an envelope's JSON body into a value.
    public static func body<T: Decodable>(_ type: T.Type, from envelope: Envelope) throws(ProtocolError) -> T {
        do {
            return try decoder.decode(T.self, from: Data(envelope.body))
        } catch {
            throw ProtocolError(
                .badBody, "\(envelope.command.rawValue) body is not a valid \(T.self): \(describe(error))")
        }
    }

    /// A short, safe rendering of untrusted bytes for logs.
    public static func printable(_ bytes: [UInt8], limit: Int = 32) -> String {
        let prefix = bytes.prefix(limit)
        if let text = String(validating: prefix, as: UTF8.self),
            text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7f })
        {
            return "\"\(text)\"" + (bytes.count > limit ? "…" : "")
        }
        return "0x" + Hex.encode(prefix) + (bytes.count > limit ? "…" : "")
    }

    private static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing field '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let ctx), DecodingError.valueNotFound(_, let ctx),
            DecodingError.dataCorrupted(let ctx):
            ctx.codingPath.map(\.stringValue).joined(separator: ".") + ": " + ctx.debugDescription
        default: "\(error)"
        }
    }

    /// Fresh coders per call: JSONEncoder/JSONDecoder are not documented as thread-safe.
    static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }
    static var decoder: JSONDecoder { JSONDecoder() }
}
