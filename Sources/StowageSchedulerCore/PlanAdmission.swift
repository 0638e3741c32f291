import Foundation
import StowageProtocol

/// What a resolve's plan becomes before it is stored, from the title's request alone: refused when nothing can be
/// downloaded (no segment in the selected renditions) or when only a device's DRM can play it and the submit did not
/// allow that; otherwise the plan to store, with the protection as this box will hold it, no Clear Key of a
/// device-only title (a device licenses it), and the poster (`--poster`, http or https) as one more file.
public enum PlanAdmission: Sendable, Equatable {
    case admitted(ResolvedPlan)
    case refused(TitleError)

    /// The facts of the title's request the plan is judged by.
    public struct Request: Sendable, Equatable {
        public var url: String
        /// A recording: it may start with no segment yet.
        public var recording: Bool
        /// `--license-url` or operator keys: the title's keys have a source besides the stream's own.
        public var keySource: Bool
        public var allowDeviceDRM: Bool
        public var posterURL: String?

        public init(url: String, recording: Bool, keySource: Bool, allowDeviceDRM: Bool, posterURL: String?) {
            self.url = url
            self.recording = recording
            self.keySource = keySource
            self.allowDeviceDRM = allowDeviceDRM
            self.posterURL = posterURL
        }
    }

    public static func of(_ plan: ResolvedPlan, for request: Request) -> PlanAdmission {
        guard !plan.resources.isEmpty || request.recording else {
            return .refused(
                TitleError(code: .playlist, message: "\(request.url): the selected renditions have no segments"))
        }
        var plan = plan
        plan.protection = plan.protection?.given(keySource: request.keySource)
        if let protection = plan.protection, protection.deviceOnly {
            guard request.allowDeviceDRM else {
                return .refused(TitleError(code: .refused, message: protection.deviceOnlyRefusal(request.url)))
            }
            plan.keys.removeAll { $0.keyFormat == "org.w3.clearkey" }  // no source: a device licenses it
        }
        if let poster = request.posterURL, let url = URL(string: poster), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme)
        {
            let ext =
                ["jpg", "jpeg", "png", "webp"].contains(url.pathExtension.lowercased())
                ? url.pathExtension.lowercased() : "img"
            plan.resources.append(
                PlannedResource(
                    kind: .poster, rendition: 0, url: poster, rangeOffset: nil, rangeLength: nil,
                    localPath: "poster.\(ext)", container: .other, encrypted: false, duration: 0))
        }
        return .admitted(plan)
    }
}
