import Foundation

/// Without libFuzzer, a fuzz target replays inputs: each file named on the command line (or each file in
/// a directory named there) goes through the target once. Used to re-run crashers and corpora.
/// Prints `replayed N input(s) without a crash` at the end (the tests compare N with the files they passed);
/// a file that cannot be read stops the replay with exit status 2.
public enum FuzzReplay {
    public static func run(_ target: (UnsafePointer<UInt8>, Int) -> CInt) {
        var count = 0
        for argument in CommandLine.arguments.dropFirst() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                FileHandle.standardError.write(Data("no such file: \(argument)\n".utf8))
                exit(2)
            }
            let files =
                isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []).filter { !$0.hasPrefix(".") }
                    .sorted().map { "\(argument)/\($0)" }
                : [argument]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("cannot read \(file)\n".utf8))
                    exit(2)
                }
                var bytes = [UInt8](data)
                if bytes.isEmpty { bytes = [0] }
                _ = bytes.withUnsafeBufferPointer { target($0.baseAddress!, data.count) }
                count += 1
            }
        }
        print("replayed \(count) input(s) without a crash")
    }
}

#if FUZZING
    @_silgen_name("LLVMFuzzerRunDriver")
    private func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    /// Under `-sanitize=fuzzer`: SwiftPM links an executable's entry point as `<module>_main`, so each target
    /// defines that symbol and hands over to libFuzzer's driver from here.
    public enum FuzzDriver {
        public static func run(
            _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
            _ target: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
        ) -> CInt {
            var count = argc
            var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
            return LLVMFuzzerRunDriver(&count, &arguments, target)
        }
    }
#endif
