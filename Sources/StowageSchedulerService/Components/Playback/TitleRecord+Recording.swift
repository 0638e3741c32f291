import StowageStore

extension TitleRecord {
    /// A recording that has not ended.
    var isRecordingNow: Bool { record != nil && recordingEndedAt == nil }
}
