import StowageStore

extension TitleRecord {
    /// Whether the title is a recording that has not ended (a pure fact of the record: the pipeline, the operator's
    /// `stop` and playback ask it as much as the recording component does).
    var isRecording: Bool { record != nil && recordingEndedAt == nil }
}
