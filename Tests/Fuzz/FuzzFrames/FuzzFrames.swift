import FuzzReplay
import StowageProtocol

/// libFuzzer target: the ZeroMQ frame codec and every message body a process decodes from a peer.
/// The input is split into frames at each `0xFF 0x00` pair, as a rogue peer could send any multipart
/// message. Anything but a clean return or a thrown `ProtocolError` is a bug, and so is a decoded envelope
/// that is not the frames it came from or a body that does not survive re-encoding (checked with a trap).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var frames: [[UInt8]] = [[]]
    var i = 0
    while i < bytes.count {
        if bytes[i] == 0xFF, i + 1 < bytes.count, bytes[i + 1] == 0x00 {
            frames.append([])
            i += 2
        } else {
            frames[frames.count - 1].append(bytes[i])
            i += 1
        }
    }
    guard let envelope = try? FrameCodec.decode(frames) else { return 0 }
    precondition(
        [Array(WireProtocol.version.utf8), Array(envelope.command.rawValue.utf8), envelope.body] == frames,
        "a decoded envelope differs from its frames")
    reEncodes(Register.self, envelope)
    reEncodes(TaskAssignment.self, envelope)
    reEncodes(TaskResult.self, envelope)
    reEncodes(TaskProgress.self, envelope)
    reEncodes(CancelTask.self, envelope)
    reEncodes(ClientRequest.self, envelope)
    reEncodes(ClientReply.self, envelope)
    reEncodes(TitleEvent.self, envelope)
    reEncodes(WorkerLimits.self, envelope)
    return 0
}

/// A body that decodes as `T` encodes again to frames that decode to the same value.
func reEncodes<T: Codable & Equatable>(_ type: T.Type, _ envelope: Envelope) {
    guard let value = try? FrameCodec.body(T.self, from: envelope) else { return }
    let again = try? FrameCodec.body(T.self, from: FrameCodec.decode(FrameCodec.encode(envelope.command, value)))
    precondition(again == value, "\(T.self) does not survive re-encoding")
}

#if FUZZING
    @_cdecl("stowage_fuzz_frames_main")
    func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
        FuzzDriver.run(argc, argv, fuzzFrames)
    }
#else
    @main
    struct Replay {
        static func main() { FuzzReplay.run(fuzzFrames) }
    }
#endif
