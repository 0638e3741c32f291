import Foundation
import FuzzReplay
import StowageDASH
import StowageProtocol

/// libFuzzer target: the MPD parser, Representation selection, segment addressing (templates, timelines, lists,
/// SegmentBase through a `sidx` read from the same bytes) and the offline planner on arbitrary bytes. Anything but
/// a clean return or a thrown `DASHError` is a bug, and so is a plan the scheduler would refuse to read (its numbers
/// out of range: checked with a trap, which libFuzzer reports as a crash). Built by `Benchmarks/fuzz.sh` with
/// `-sanitize=fuzzer`; built normally it replays the files given as arguments (crashers, corpora).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMPD(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? SidxBox.parse(bytes, offset: 0)
    guard let mpd = try? MPD(data: Data(bytes), url: "http://origin.test/a/manifest.mpd") else { return 0 }
    for selection in [Selection(), Selection(bitrate: 2_000_000, maxHeight: 720, audio: ["en"], subtitles: ["all"])] {
        guard let choices = try? RepresentationSelector.select(mpd, selection) else { continue }
        var inputs: [DASHPlanner.Input] = []
        for choice in choices {
            let period = mpd.periods[choice.period]
            for track in choice.tracks {
                let rep = period.adaptationSets[track.adaptationSet].representations[track.representation]
                switch try? SegmentAddresser.address(rep, in: period) {
                case .segments(let segments)?:
                    inputs.append(.init(period: choice.period, track: track, segments: segments))
                case .needsIndex(let request)?:
                    if let segments = try? request.segments(fromSidx: bytes) {
                        inputs.append(.init(period: choice.period, track: track, segments: segments))
                    }
                case nil:
                    continue
                }
            }
        }
        if let plan = try? DASHPlanner.plan(mpd: mpd, inputs: inputs) {
            precondition(plan.numberProblem == nil, "a plan the scheduler refuses: \(plan.numberProblem!)")
        }
    }
    return 0
}

#if FUZZING
    @_cdecl("stowage_fuzz_mpd_main")
    func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
        FuzzDriver.run(argc, argv, fuzzMPD)
    }
#else
    @main
    struct Replay {
        static func main() { FuzzReplay.run(fuzzMPD) }
    }
#endif
