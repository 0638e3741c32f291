import Foundation

/// Runs a prepared process to completion; returns its exit status and standard output (stderr discarded).
public func runCapturingOutput(_ p: Process) throws -> (Int32, String) {
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Runs a prepared process to completion; returns its exit status, standard output and standard error.
/// Both go through files, not pipes: a program that leaves daemons behind (Deploy/start.sh) would otherwise
/// keep a pipe open and its reader waiting.
public func runCapturingStreams(_ p: Process) throws -> (status: Int32, stdout: String, stderr: String) {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("stowage-test-\(UUID().uuidString)")
    let outFile = base.appendingPathExtension("out"), errFile = base.appendingPathExtension("err")
    for f in [outFile, errFile] { FileManager.default.createFile(atPath: f.path, contents: nil) }
    defer { for f in [outFile, errFile] { try? FileManager.default.removeItem(at: f) } }
    p.standardOutput = try FileHandle(forWritingTo: outFile)
    p.standardError = try FileHandle(forWritingTo: errFile)
    try p.run()
    p.waitUntilExit()
    let out = (try? String(contentsOf: outFile, encoding: .utf8)) ?? ""
    let err = (try? String(contentsOf: errFile, encoding: .utf8)) ?? ""
    return (p.terminationStatus, out, err)
}
