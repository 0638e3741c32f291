import Foundation
import Testing
@testable import StowageProtocol

@Suite("Frame codec")
struct FrameCodecTests {
    @Test func roundTripsEveryMessageShape() throws {
        let task = TaskAssignment(taskID: "abc-1", token: "0123456789abcdef",
                                  work: .fetch(FetchWork(url: "http://h/x.ts", headers: [Header(name: "A", value: "b")],
                                                         rangeOffset: 10, rangeLength: 20, path: "t/video/seg-000001.ts")))
        let frames = FrameCodec.encode(.task, task)
        #expect(frames.count == 3)
        let envelope = try FrameCodec.decode(frames)
        #expect(envelope.command == .task)
        #expect(try FrameCodec.body(TaskAssignment.self, from: envelope) == task)

        let result = TaskResult(taskID: "abc-1", token: "t", outcome: .failed(TaskFailure(code: .httpStatus, message: "404", retryable: false)))
        #expect(try FrameCodec.body(TaskResult.self, from: FrameCodec.decode(FrameCodec.encode(.result, result))) == result)
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
        let envelope = try FrameCodec.decode([Array("STW1".utf8), Array("REGISTER".utf8), Array(#"{"kind":"download"}"#.utf8)])
        do {
            _ = try FrameCodec.body(Register.self, from: envelope)
            Issue.record("expected failure")
        } catch {
            #expect(error.code == .badBody)
            #expect(error.message.contains("capacity"))
        }
    }

    @Test func randomFramesNeverTrap() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...5, using: &rng)
            var frames: [[UInt8]] = (0..<count).map { _ in (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) } }
            if count == 3 && Bool.random(using: &rng) { frames[0] = Array("STW1".utf8); frames[1] = Array("RESULT".utf8) }
            if let e = try? FrameCodec.decode(frames) { _ = try? FrameCodec.body(TaskResult.self, from: e) }
        }
    }

    @Test func statusJSONHasEveryContractKey() throws {
        let status = TitleStatus(token: "t", url: "http://h/m.m3u8", name: nil, state: .requested, progress: 0, bytesDownloaded: 0,
                                 bytesExpected: nil, segmentsDone: 0, segmentsTotal: 0, requestedAt: nil, startedAt: nil, endedAt: nil,
                                 license: nil, localPlaylist: nil, playableOffline: false, error: nil)
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(status)) as! [String: Any]
        let keys = ["token", "url", "name", "state", "progress", "bytesDownloaded", "bytesExpected", "segmentsDone", "segmentsTotal",
                    "requestedAt", "startedAt", "endedAt", "license", "localPlaylist", "playableOffline", "error",
                    // the resumption issue's additions
                    "suspendedReason", "suspendedSince", "nextProbeAt", "waitingFor", "queuePosition"]
        #expect(Set(object.keys) == Set(keys))
    }

    @Test func headerParsingRefusesInjection() {
        #expect(Header(parsing: "Authorization: Bearer x") == Header(name: "Authorization", value: "Bearer x"))
        #expect(Header(parsing: "no colon") == nil)
        #expect(Header(parsing: "Bad Name: x") == nil)
        #expect(Header(parsing: "X: a\r\nInjected: b") == nil)
    }
}
