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
