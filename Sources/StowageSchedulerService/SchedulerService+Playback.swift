import Foundation
import StowageProtocol
import StowageStore

extension SchedulerService {
    /// The title's protection as stored with its plan (nil: not encrypted).
    func protection(of title: TitleRecord) -> TitleProtection? {
        title.protection
    }

    /// Why a title only a device's DRM can play is not downloaded without `--allow-device-drm`.
    static func deviceOnlyRefusal(_ url: String, _ protection: TitleProtection) -> TitleError {
        TitleError(code: .refused, message: protection.deviceOnlyRefusal(url))
    }

    func unknownTitle(_ token: String) -> TitleError { .noTitle(token) }

    /// The playability verdict (``PlaybackComponent``).
    func playability(_ title: TitleRecord, thorough: Bool = true, startingPlay: Bool = false) throws
        -> PlayAuthorization
    {
        guard let playback else { throw TitleError(code: .internal, message: "no playback component") }
        return try playback.playability(title, thorough: thorough, startingPlay: startingPlay)
    }
}
