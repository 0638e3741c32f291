import Foundation
import StowageTestSupport
import Testing

@testable import StowageProtocol

@Suite("Frame codec")
struct FrameCodecTests {
    @Test func roundTripsEveryMessageShape() throws {
        let task = TaskAssignment(
            taskID: "abc-1", token: "0123456789abcdef",
            work: .fetch(
                FetchWork(
                    url: "http://h/x.ts", headers: [Header(name: "A", value: "b")],
                    rangeOffset: 10, rangeLength: 20, path: "t/video/seg-000001.ts")))
        let frames = FrameCodec.encode(.task, task)
        #expect(frames.count == 3)
        let envelope = try FrameCodec.decode(frames)
        #expect(envelope.command == .task)
        #expect(try FrameCodec.body(TaskAssignment.self, from: envelope) == task)

        let result = TaskResult(
            taskID: "abc-1", token: "t",
            outcome: .failed(TaskFailure(code: .httpStatus, message: "404", retryable: false)))
        #expect(
            try FrameCodec.body(TaskResult.self, from: FrameCodec.decode(FrameCodec.encode(.result, result))) == result)
    }

    @Test func rejectsWrongFrameCount() {
        #expect(throws: ProtocolError(.frameCount, "expected 3 frames [version, command, body], got 1")) {
            try FrameCodec.decode([Array("garbage".utf8)])
        }
    }

    @Test func rejectsOtherVersions() {
        #expect(throws: ProtocolError.self) { try FrameCodec.decode([Array("MDPW01".utf8), Array("TASK".utf8), []]) }
    }

    @Test func rejectsUnknownCommands() {
        do {
            _ = try FrameCodec.decode([Array("STW1".utf8), [0xff, 0x00], []])
            Issue.record("expected failure")
        } catch {
            #expect(error.code == .unknownCommand)
            #expect(error.message.contains("0xff00"))
        }
    }

    @Test func badBodyNamesTheField() throws {
        let envelope = try FrameCodec.decode([
            Array("STW1".utf8), Array("REGISTER".utf8), Array(#"{"kind":"download"}"#.utf8),
        ])
        do {
            _ = try FrameCodec.body(Register.self, from: envelope)
            Issue.record("expected failure")
        } catch {
            #expect(error.code == .badBody)
            #expect(error.message.contains("capacity"))
        }
    }

    /// Seeded messages of the shapes workers and the scheduler exchange (awkward strings, extreme numbers):
    /// each encodes to three frames, decodes to the same command and value, and re-encodes to the same bytes.
    @Test func decodedMessagesReEncodeToTheSameBytes() throws {
        var g = SeededGenerator(seed: 2_024)
        for _ in 0..<400 {
            try Self.roundTrip(
                .register,
                Register(
                    kind: g.pick(WorkerKind.allCases), capacity: g.int(),
                    host: g.string(), pid: Int32(truncatingIfNeeded: g.next())))
            let headers = (0..<Int(g.next() % 3)).map { _ in Header(name: g.string(), value: g.string()) }
            let fetch = FetchWork(
                url: g.string(), headers: headers, rangeOffset: g.maybe { $0.int64() },
                rangeLength: g.maybe { $0.int64() }, path: g.string())
            try Self.roundTrip(.task, TaskAssignment(taskID: g.string(), token: g.string(), work: .fetch(fetch)))
            let retryable = g.next() % 2 == 0, retryAfter = g.maybe { Double($0.next() % 100_000) / 8 }
            var failure = TaskFailure(
                code: g.pick(ErrorCode.allCases), message: g.string(), retryable: retryable,
                retryAfter: retryAfter, host: g.maybe { $0.string() })
            failure.status = g.maybe { Int($0.next() % 600) }
            let outcome: Outcome =
                g.next() % 2 == 0
                ? .failed(failure)
                : .fetched(FetchReport(bytes: g.int64(), contentLength: g.maybe { $0.int64() }))
            try Self.roundTrip(.result, TaskResult(taskID: g.string(), token: g.string(), outcome: outcome))
            try Self.roundTrip(.progress, TaskProgress(taskID: g.string(), token: g.string(), bytes: g.int64()))
            try Self.roundTrip(.cancelTask, CancelTask(taskID: g.string()))
            try Self.roundTrip(.limits, WorkerLimits(bytesPerSecond: g.maybe { $0.int64() }))
        }
        #expect(FrameCodec.encode(.heartbeat) == FrameCodec.encode(.heartbeat, [String: String]()))
    }

    static func roundTrip<T: Codable & Equatable>(_ command: Command, _ value: T) throws {
        let frames = FrameCodec.encode(command, value)
        #expect(frames.count == 3 && frames[0] == Array("STW1".utf8) && frames[1] == Array(command.rawValue.utf8))
        let envelope = try FrameCodec.decode(frames)
        #expect(envelope.command == command && envelope.body == frames[2])
        let decoded = try FrameCodec.body(T.self, from: envelope)
        #expect(decoded == value)
        #expect(FrameCodec.encode(command, decoded) == frames, "\(String(decoding: frames[2], as: UTF8.self))")
    }

    /// Seeded mutations of valid messages and random frames: a decode either succeeds with exactly the frames it
    /// was given, or fails with the typed ProtocolError whose code names the first rule the frames break.
    @Test func mutatedFramesDecodeOrFailWithTheRightCode() throws {
        var g = SeededGenerator(seed: 99)
        let version = Array("STW1".utf8)
        let result = TaskResult(
            taskID: "t-1", token: "abc",
            outcome: .failed(
                TaskFailure(
                    code: .network, message: "x",
                    retryable: true)))
        let valid = [
            FrameCodec.encode(.result, result),
            FrameCodec.encode(
                .register,
                Register(
                    kind: .download,
                    capacity: 4, host: "h", pid: 7)), FrameCodec.encode(.heartbeat),
        ]
        var codes: [ProtocolError.Code?: Int] = [:]
        var bodies = (decoded: 0, refused: 0)
        for _ in 0..<6_000 {
            var frames = g.pick(valid)
            switch g.next() % 8 {
            case 6: break  // unchanged
            case 7:  // a letter in the body changed: often still valid JSON, with other values
                let i = Int(g.next() % UInt64(frames[2].count))
                frames[2][i] = UInt8(ascii: "a") + UInt8(g.next() % 26)
            case 0: frames.remove(at: Int(g.next() % 3))
            case 1: frames.insert(g.bytes(), at: Int(g.next() % 4))
            case 2: frames = (0..<Int(g.next() % 6)).map { _ in g.bytes() }
            default:
                for _ in 0..<Int(g.next() % 3 + 1) {
                    let f = Int(g.next() % 3)
                    if frames[f].isEmpty {
                        frames[f] = g.bytes()
                        continue
                    }
                    let i = Int(g.next() % UInt64(frames[f].count))
                    switch g.next() % 3 {
                    case 0: frames[f][i] = UInt8(truncatingIfNeeded: g.next())
                    case 1: frames[f].remove(at: i)
                    default: frames[f].insert(g.pick(Array("{}[]\":,0\\".utf8)), at: i)
                    }
                }
            }
            let expected = Self.expectedCode(frames, version: version)
            codes[expected, default: 0] += 1
            let envelope: Envelope
            do {
                envelope = try FrameCodec.decode(frames)
            } catch {
                #expect(error.code == expected, "\(error) for \(frames)")
                #expect(!error.message.isEmpty)
                continue
            }
            #expect(expected == nil, "decoded what breaks \(String(describing: expected)): \(frames)")
            #expect([version, Array(envelope.command.rawValue.utf8), envelope.body] == frames)
            do {
                let value = try FrameCodec.body(TaskResult.self, from: envelope)
                bodies.decoded += 1
                let reEncoded = FrameCodec.encode(envelope.command, value)
                let again = try FrameCodec.body(TaskResult.self, from: FrameCodec.decode(reEncoded))
                #expect(again == value)
                if frames[2] == valid[0][2] { #expect(value == result) }
            } catch {
                bodies.refused += 1
                #expect(error.code == .badBody && error.message.contains(envelope.command.rawValue), "\(error)")
            }
        }
        // Every rule was broken, and bodies both decoded and were refused.
        for code in [nil, .frameCount, .version, .unknownCommand] as [ProtocolError.Code?] {
            #expect(codes[code, default: 0] >= 100, "\(String(describing: code)): \(codes)")
        }
        #expect(bodies.decoded >= 100 && bodies.refused >= 100, "\(bodies)")
        // One body over the limit (64 MiB + 1), refused before any JSON parsing.
        let oversized = [version, Array("RESULT".utf8), [UInt8](repeating: 0x20, count: FrameCodec.maxBodyBytes + 1)]
        #expect(Self.expectedCode(oversized, version: version) == .tooLarge)
        do {
            _ = try FrameCodec.decode(oversized)
            Issue.record("a body over the limit was accepted")
        } catch {
            #expect(error.code == .tooLarge)
        }
    }

    /// The code a decode must fail with, from the rules in order (nil: the frames are a valid envelope).
    static func expectedCode(_ frames: [[UInt8]], version: [UInt8]) -> ProtocolError.Code? {
        guard frames.count == 3 else { return .frameCount }
        guard frames[0] == version else { return .version }
        guard let name = String(validating: frames[1], as: UTF8.self), Command(rawValue: name) != nil else {
            return .unknownCommand
        }
        return frames[2].count > FrameCodec.maxBodyBytes ? .tooLarge : nil
    }

    @Test func statusJSONHasEveryContractKey() throws {
        let status = TitleStatus(
            token: "t", url: "http://h/m.m3u8", name: nil, state: .requested, progress: 0, bytesDownloaded: 0,
            bytesExpected: nil, segmentsDone: 0, segmentsTotal: 0, requestedAt: nil, startedAt: nil, endedAt: nil,
            license: nil, localPlaylist: nil, playableOffline: false, error: nil)
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(status)) as! [String: Any]
        let keys = [
            "token", "url", "name", "state", "progress", "bytesDownloaded", "bytesExpected", "segmentsDone",
            "segmentsTotal",
            "requestedAt", "startedAt", "endedAt", "license", "localPlaylist", "playableOffline", "error",
            // the resumption issue's additions
            "suspendedReason", "suspendedSince", "nextProbeAt", "waitingFor", "queuePosition",
            // the live-recording issue's (recordedSeconds, gaps) and the gateway issue's (id)
            "recordedSeconds", "gaps", "stalledSince", "id",
            // the DASH issue's
            "protection", "notPlayableReason",
            // the box-to-box issue's
            "filesFromPeer", "filesFromOrigin",
            // the box-runs-itself issue's
            "nextWindowAt", "lastPlayedAt", "pinned",
            // the devices issue's clips
            "range", "pathway", "pathways",
            // and its single file (`submit --file`; null when none asked for)
            "file",
        ]
        #expect(Set(object.keys) == Set(keys))
    }

    @Test func headerParsingRefusesInjection() {
        #expect(Header(parsing: "Authorization: Bearer x") == Header(name: "Authorization", value: "Bearer x"))
        #expect(Header(parsing: "no colon") == nil)
        #expect(Header(parsing: "Bad Name: x") == nil)
        #expect(Header(parsing: "X: a\r\nInjected: b") == nil)
    }
}

/// The values the properties draw, from the shared seeded generator (fixed seed, fixed count).
extension SeededGenerator {
    mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
    mutating func maybe<T>(_ make: (inout SeededGenerator) -> T) -> T? { next() % 3 == 0 ? nil : make(&self) }
    mutating func int() -> Int { pick([0, 1, -1, .max, .min, Int(truncatingIfNeeded: next())]) }
    mutating func int64() -> Int64 { pick([0, 1, .max, .min, Int64(truncatingIfNeeded: next())]) }
    mutating func bytes() -> [UInt8] { (0..<Int(next() % 40)).map { _ in UInt8(truncatingIfNeeded: next()) } }
    /// Text with what JSON must escape or carry: quotes, backslashes, controls, NUL, non-ASCII, emoji.
    mutating func string() -> String {
        let pieces = [
            "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "é", "日本", "😀",
            "\u{2028}", "http://h/x.ts?a=1&b=2", "%2F",
        ]
        return (0..<Int(next() % 8)).map { _ in pick(pieces) }.joined()
    }
}
