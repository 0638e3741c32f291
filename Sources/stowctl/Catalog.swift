import ArgumentParser
import Foundation
import StowageProtocol

/// `stowctl catalog apply|status`: the box's catalogue (see docs/catalogue.md).
struct CatalogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Apply a catalogue once, or show the one in force and where each of its titles is.",
        subcommands: [Apply.self, CatalogStatus.self])

    struct Apply: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: """
                Apply a catalogue file (its signature from FILE.sig when present). It goes through the same checks as \
                --catalog: signed when the scheduler has --catalog-key, well formed, version above the one in force.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The catalogue's JSON file.") var file: String

        func run() throws {
            let document: Data
            do { document = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                throw Failure("cannot read \(file): \(error.localizedDescription)", code: .io)
            }
            let signature = try? Data(contentsOf: URL(fileURLWithPath: file + ".sig"))
            let report = try connection.request(
                .catalogApply(document: Array(document), signature: signature.map { Array($0) }))
            CatalogCommand.show(report, json: connection.json)
        }
    }

    struct CatalogStatus: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: """
                The catalogue in force (version, source), the last fetch and why it failed, and each entry: present, \
                downloading, waiting-for-window, failed (with the error), to-be-removed (when), held-by-operator.
                """)
        @OptionGroup var connection: ConnectionOptions

        func run() throws { CatalogCommand.show(try connection.request(.catalogStatus), json: connection.json) }
    }

    static func show(_ report: CatalogReport, json: Bool) {
        if json {
            printJSON(report)
            return
        }
        print("catalogue: " + (report.version.map { "version \($0)" } ?? "none in force"))
        if let source = report.source { print("source:    \(URLRedaction.redacted(source))") }
        if let applied = report.appliedAt { print("applied:   \(applied)") }
        if let fetched = report.lastFetchAt { print("last fetch: \(fetched)") }
        if let error = report.lastError { print("last error: \(error.code.rawValue): \(error.message)") }
        for entry in report.entries {
            var line = "  \(entry.id)  \(entry.phase.rawValue)"
            if let token = entry.token { line += "  \(token)" }
            if let new = entry.replacing { line += "  (new copy \(new) downloading)" }
            if let at = entry.removeAt { line += "  at \(at)" }
            if let error = entry.error { line += "  [\(error.code.rawValue)] \(error.message)" }
            print(line)
        }
    }
}
