import ArgumentParser
import Foundation
import StowageProtocol
import StowageRuntime

/// `stowctl keys`: CURVE key pairs for tcp endpoints.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make CURVE key pairs for connections over tcp.",
        discussion: """
            Every tcp endpoint is CURVE-encrypted and authenticated. The scheduler has a key pair \
            (--curve-key) and an allow-list of the public keys of workers and clients (--allow-keys, a file \
            or a directory of .pub files, re-read at every connection). Each worker host and operator has its \
            own pair and the scheduler's public key. The folder a .pub file lies in on the allow-list is the key's \
            role: keys/allowed/worker/ (worker messages only), keys/allowed/gateway/ (read titles, check devices, \
            serve plays), keys/allowed/operator/ (everything); a .pub file directly in keys/allowed/ is an \
            operator's. A request the role does not allow is refused with the error code forbidden.

            Example:
              stowctl keys generate scheduler                       # on the scheduler host
              stowctl keys generate worker-host2 --dir /etc/stowage # on host2; copy worker-host2.pub to the
                                                                    # scheduler's keys/allowed/worker/
              stowage-scheduler --bind tcp://0.0.0.0:7700 --curve-key ~/.stowage/keys/scheduler.key \\
                  --allow-keys ~/.stowage/keys/allowed
            """,
        subcommands: [Generate.self])

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write NAME.key (secret, mode 0600) and NAME.pub (public) and print the public key.")

        @Argument(help: "A name for the pair, e.g. scheduler or worker-host2.")
        var name: String
        @Option(help: "Where to write the files. Default: $STOWAGE_HOME/keys.")
        var dir: String?
        @Option(help: "Stowage home. Default: $STOWAGE_HOME or ~/.stowage.")
        var home: String?
        @Flag(help: "Machine-readable JSON output.")
        var json = false

        func run() throws {
            let directory =
                dir.map { URL(fileURLWithPath: $0) }
                ?? StowageHome(option: home).root.appendingPathComponent("keys")
            do {
                let pair = try CurveKeyPair.generate()
                let (key, pub) = try pair.write(directory: directory, name: name)
                if json {
                    printJSON([
                        "name": name, "publicKey": pair.publicKey, "keyFile": key.path,
                        "publicKeyFile": pub.path,
                    ])
                } else {
                    print("secret key file: \(key.path) (mode 0600; keep it on this host)")
                    print("public key file: \(pub.path) (goes on the scheduler's allow-list)")
                    print(pair.publicKey)
                }
            } catch let error as RuntimeError {
                throw Failure(error.description, code: error.code)
            }
        }
    }
}
