import FuzzReplay
import StowageHLS
import StowageProtocol

/// libFuzzer target: the playlist parsers, rendition selection and the offline planner on arbitrary
/// bytes. Anything but a clean return or a thrown `PlaylistError` is a bug, and so is an offline playlist
/// that does not parse back to the same segments (checked with a trap, which libFuzzer reports as a crash).
/// Built by `Benchmarks/fuzz.sh` with `-sanitize=fuzzer`; built normally it replays the files given as
/// arguments (crashers, corpora).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlaylist(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let url = "http://origin.test/a/b/index.m3u8?token=x"
    if let media = try? MediaPlaylist(text: text, url: url, allowLive: true),
        let plan = try? OfflinePlanner.plan(
            master: nil, choice: nil,
            inputs: [.init(kind: .video, playlist: media, rendition: nil)])
    {
        let offline: MediaPlaylist
        do {
            offline = try MediaPlaylist(
                text: plan.renditions[0].playlist, url: "http://127.0.0.1:9/video/index.m3u8",
                allowLive: true)
        } catch {
            fatalError("the offline playlist does not parse: \(error)")
        }
        let shape = { (p: MediaPlaylist) in p.segments.map { "\($0.duration) \($0.mediaSequence) \($0.isGap)" } }
        precondition(shape(offline) == shape(media), "the offline playlist has other segments than its source")
    }
    if let master = try? MasterPlaylist(text: text, url: url) {
        _ = try? RenditionSelector.select(
            master, .init(bitrate: 2_000_000, maxHeight: 720, audio: ["en", "de"], subtitles: ["all"]))
        _ = try? RenditionSelector.select(master, .init())
    }
    return 0
}

#if FUZZING
    @_cdecl("stowage_fuzz_playlist_main")
    func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
        FuzzDriver.run(argc, argv, fuzzPlaylist)
    }
#else
    @main
    struct Replay {
        static func main() { FuzzReplay.run(fuzzPlaylist) }
    }
#endif
