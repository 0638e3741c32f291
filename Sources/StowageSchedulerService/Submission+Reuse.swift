import StowageProtocol
import StowageStore

extension Submission {
    /// What this submit asks that the title of the same URL already there does not have: each option given
    /// explicitly with another value (a name, an id, a rendition choice, a license URL, a window). A submit of the
    /// URL without options, or with the same ones, is the same title (scripts get its token back; `--now` again is
    /// allowed); one with other options is refused naming the title, never silently answered with the old one.
    func differences(from title: TitleRecord) -> [String] {
        var out: [String] = []
        func compare<T: Equatable>(_ flag: String, _ asked: T?, _ kept: T?, _ text: (T) -> String) {
            guard let asked, asked != kept else { return }
            out.append("\(flag) \(text(asked)), not \(kept.map(text) ?? "unset")")
        }
        compare("--name", request.name, title.name) { "'\($0)'" }
        compare("--id", request.id, title.externalID) { "'\($0)'" }
        let asked = request.selection, kept = title.selection
        compare("--bitrate", asked.bitrate, kept.bitrate) { "\($0)" }
        compare("--max-height", asked.maxHeight, kept.maxHeight) { "\($0)" }
        compare("--audio", asked.audio, kept.audio) { $0.joined(separator: ",") }
        compare("--subtitles", asked.subtitles, kept.subtitles) { $0.joined(separator: ",") }
        compare("--iframes", asked.iframes == true ? true : nil, kept.iframes ?? false) { $0 ? "on" : "off" }
        compare("--video-codec", asked.videoCodec, kept.videoCodec) { $0.map(\.rawValue).joined(separator: ",") }
        compare("--video-range", asked.videoRange, kept.videoRange) { $0.rawValue }
        compare("--audio-codec", asked.audioCodec, kept.audioCodec) { $0.map(\.rawValue).joined(separator: ",") }
        compare("--channels", asked.channels, kept.channels) { "\($0)" }
        compare("--audio-only", asked.audioOnly == true ? true : nil, kept.audioOnly ?? false) { $0 ? "on" : "off" }
        compare("--license-url", request.licenseURL, title.licenseURL) { $0 }
        compare("--window", window, title.fillWindow) { $0 }
        compare("--range", request.range, title.clipRange) { $0.description }
        compare("--file", request.file, title.singleFile) { $0.rawValue }
        return out
    }

    /// The refusal of a submit whose options differ from the title of the same URL.
    static func conflict(_ title: TitleRecord, _ differences: [String]) -> TitleError {
        let named = title.name.map { " ('\($0)')" } ?? ""
        return TitleError(
            code: .refused,
            message: "\(title.url) is already title \(title.token)\(named) with other options ("
                + differences.joined(separator: "; ") + "): `stowctl delete \(title.token)` first to download it "
                + "again with these, or submit without options to get its token")
    }
}
