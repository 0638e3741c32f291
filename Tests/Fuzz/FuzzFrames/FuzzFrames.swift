import StowageProtocol
import FuzzReplay

/// libFuzzer target: the ZeroMQ frame codec and every message body a process decodes from a peer.
/// The input is split into frames at each `0xFF 0x00` pair, as a rogue peer could send any multipart
/// message. Anything but a clean return or a thrown `ProtocolError` is a bug.
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
    _ = try? FrameCodec.body(Register.self, from: envelope)
    _ = try? FrameCodec.body(TaskAssignment.self, from: envelope)
    _ = try? FrameCodec.body(TaskResult.self, from: envelope)
    _ = try? FrameCodec.body(TaskProgress.self, from: envelope)
    _ = try? FrameCodec.body(CancelTask.self, from: envelope)
    _ = try? FrameCodec.body(ClientRequest.self, from: envelope)
    _ = try? FrameCodec.body(ClientReply.self, from: envelope)
    _ = try? FrameCodec.body(TitleEvent.self, from: envelope)
    _ = try? FrameCodec.body(WorkerLimits.self, from: envelope)
    return 0
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
