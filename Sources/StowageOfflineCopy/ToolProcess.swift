import Foundation

/// ffmpeg and ffprobe as child processes: found on `PATH` (a missing one is said so, never a crash), their
/// standard error kept in a file so a long run cannot fill a pipe, their standard output read line by line.
struct ToolProcess {
    let tool: String
    let arguments: [String]

    /// The tool's path on `PATH`.
    static func locate(_ tool: String) throws(RemuxError) -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw .ffmpegMissing(tool)
    }

    /// Runs to its end, handing each line of standard output to `line`; returns the exit status and the end of
    /// standard error.
    func run(line: (Substring) -> Void) throws(RemuxError) -> (status: Int32, stderr: String) {
        let executable = try Self.locate(tool)
        let errorFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("stowage-\(tool)-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: errorFile.path, contents: nil),
            let errorHandle = try? FileHandle(forWritingTo: errorFile)
        else { throw RemuxError(.io, "cannot create \(errorFile.path) for \(tool)'s messages") }
        defer {
            try? errorHandle.close()
            try? FileManager.default.removeItem(at: errorFile)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errorHandle
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw RemuxError(.io, "cannot start \(executable): \(error)") }
        var pending = Data()
        while true {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: 0x0A) {
                line(Substring(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)))
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
        process.waitUntilExit()
        let stderr = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return (process.terminationStatus, String(stderr.suffix(2_000)))
    }
}
