import Foundation

/// Runs a prepared process to completion; returns its exit status and standard output (stderr discarded).
func runCapturingOutput(_ p: Process) throws -> (Int32, String) {
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Runs a prepared process to completion; returns its exit status, standard output and standard error.
func runCapturingStreams(_ p: Process) throws -> (status: Int32, stdout: String, stderr: String) {
    let out = Pipe()
    let errFile = FileManager.default.temporaryDirectory.appendingPathComponent("stw-err-\(UUID().uuidString)")
    FileManager.default.createFile(atPath: errFile.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errFile) }
    p.standardOutput = out
    p.standardError = try FileHandle(forWritingTo: errFile)
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let err = (try? String(contentsOf: errFile, encoding: .utf8)) ?? ""
    return (p.terminationStatus, String(decoding: data, as: UTF8.self), err)
}
