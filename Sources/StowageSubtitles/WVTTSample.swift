/// The cues of one `wvtt` sample (ISO/IEC 14496-30 §7): each `vttc` box is a cue lasting the whole sample, its
/// text in `payl`, its settings in `sttg`, its identifier in `iden`; a `vtte` sample is a gap with no cue; `vtta`
/// (a comment) is skipped. A cue that spans samples is repeated in each and merged afterwards.
enum WVTTSample {
    static func cues(_ sample: FragmentedTextTrack.Sample) throws(SubtitleError) -> [SubtitleCue] {
        let bytes = sample.bytes
        var cues: [SubtitleCue] = []
        for box in try MP4Box.boxes(in: bytes, range: 0..<bytes.count) {
            switch box.type {
            case "vtte", "vtta":
                continue
            case "vttc":
                var text: String?, settings = ""
                for child in try box.children(bytes) {
                    let content = Array(bytes[child.contentStart..<child.end])
                    switch child.type {
                    case "payl":
                        guard let payload = String(validating: content, as: UTF8.self) else {
                            throw SubtitleError(
                                .malformed, file: "", "the cue at \(sample.start)s has a payload that is not UTF-8")
                        }
                        text = payload
                    case "sttg":
                        settings = String(decoding: content, as: UTF8.self)
                    default:
                        continue  // iden, vsid, ctim: nothing a .vtt or .srt file keeps
                    }
                }
                guard let text else {
                    throw SubtitleError(.malformed, file: "", "a vttc cue at \(sample.start)s has no payl (text)")
                }
                cues.append(
                    SubtitleCue(
                        start: sample.start, end: sample.start + sample.duration,
                        settings: settings.trimmingCharacters(in: .whitespaces),
                        text: text.trimmingCharacters(in: .newlines)))
            default:
                throw SubtitleError(
                    .malformed, file: "", "a wvtt sample at \(sample.start)s holds a '\(box.type)' box, not vttc/vtte")
            }
        }
        return cues
    }
}
