import ArgumentParser
import Foundation
import StowageProtocol

/// `stowctl box`: this box's identity for bundles (docs/bundles.md).
struct BoxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "box",
        abstract: "This box's identity for carrying titles to and from other boxes.",
        subcommands: [Key.self])

    struct Key: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print this box's public key (one line of JSON) for other boxes' --for-box and --trust.",
            discussion: """
                The scheduler keeps the private half in box.key beside master.key (mode 0600), made once. \
                Save the output to a file and hand it to the other box, e.g. `stowctl box key > box-b.pub`.
                """)

        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            print(try connection.request(.boxKey))
        }
    }
}
