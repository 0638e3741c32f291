import Foundation
import Logging
import Synchronization

/// A poster for a completed title that came without one (`submit --poster`): one frame of the offline copy taken by
/// ffmpeg, stored as the title's `frame.jpg` (beside its files, removed with them; not in its plan, so neither
/// verified nor exported). Made by the gateway, the part that shows posters, the first time it lists the title —
/// off the request (on a thread of its own, as ffmpeg is waited for), once per title and process, one at a time.
/// Without ffmpeg, or when the frame fails (an encrypted copy, a broken file), the title simply has no poster: nothing
/// else depends on it.
final class PosterFrames: Sendable {
    /// The file name of a frame taken from the title.
    static let fileName = "frame.jpg"
    /// How long one ffmpeg run may take before it is stopped.
    static let limitSeconds = 20.0

    private let ffmpeg: String?
    private let logger: Logger
    /// Titles asked for (made, failed or being made) and whether a run is under way; `waiting` are the next.
    private struct State: Sendable {
        var asked: Set<String> = []
        var running = false
        var waiting: [(directory: String, entry: String, at: Double)] = []
    }
    private let state = Mutex(State())

    init(logger: Logger, ffmpeg: String? = PosterFrames.findFFmpeg()) {
        self.ffmpeg = ffmpeg
        self.logger = logger
    }

    /// Asks for a frame of the copy in `directory` (entry playlist `entry`), `at` seconds in; at most once.
    func request(directory: String, entry: String, at seconds: Double) {
        guard ffmpeg != nil else { return }
        let start = state.withLock { state -> Bool in
            guard state.asked.insert(directory).inserted else { return false }
            state.waiting.append((directory, entry, seconds))
            if state.running { return false }
            state.running = true
            return true
        }
        if start { Thread.detachNewThread { self.drain() } }
    }

    private func drain() {
        while let next = state.withLock({ state -> (directory: String, entry: String, at: Double)? in
            if state.waiting.isEmpty {
                state.running = false
                return nil
            }
            return state.waiting.removeFirst()
        }) {
            take(next.directory, entry: next.entry, at: next.at)
        }
    }

    /// Runs ffmpeg on the local copy (files only), writing `frame.jpg.part` then renaming it.
    private func take(_ directory: String, entry: String, at seconds: Double) {
        guard let ffmpeg else { return }
        let part = directory + "/" + Self.fileName + ".part"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = [
            "-nostdin", "-v", "error", "-y", "-protocol_whitelist", "file", "-ss", String(format: "%.2f", seconds),
            "-i", directory + "/" + entry, "-map", "0:v:0", "-frames:v", "1", "-vf", "scale=480:-2", "-f", "image2",
            part,
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        do { try process.run() } catch {
            logger.info("poster frame: ffmpeg did not start", metadata: ["error": "\(error)"])
            return
        }
        if done.wait(timeout: .now() + Self.limitSeconds) == .timedOut {
            process.terminate()
            done.wait()
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: part))?[.size] as? Int ?? 0
        guard process.terminationStatus == 0, size > 0,
            rename(part, directory + "/" + Self.fileName) == 0
        else {
            try? FileManager.default.removeItem(atPath: part)
            logger.info(
                "poster frame: none taken", metadata: ["title": "\(directory)", "exit": "\(process.terminationStatus)"])
            return
        }
        logger.info("poster frame taken", metadata: ["title": "\(directory)"])
    }

    /// `ffmpeg` on `PATH`, or nil.
    static func findFFmpeg() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { $0 + "/ffmpeg" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
