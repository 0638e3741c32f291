import ArgumentParser
import Foundation
import StowageProtocol

extension AsyncParsableCommand {
    /// Parses the command line and runs the command, asynchronously, from a `main.swift` or a `@main` type's
    /// `main()`: the one place every Stowage executable answers a failure.
    ///
    /// A usage error (a bad flag, or a bad `STOWAGE_<OPTION>` refused by ``EnvironmentRule`` in `validate()`)
    /// exits 2, not argument-parser's 64; any other error exits 1. Each is one `Error: [code] message` line on
    /// stderr (`Error: message` for `internal`; argument-parser's usage text follows a usage error). With
    /// `jsonFlag` on the command line (`stowctl --json`), the error is instead `{"error": {"code", "message"}}` on
    /// stdout, with the same exit status, so a script reads one format whatever happened.
    public static func topLevelMain(jsonFlag: String? = nil) async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let json = jsonFlag.map { CommandFailure.argumentsContain($0) } ?? false
            let status = exitCode(for: error)
            if status == .validationFailure {
                if json { CommandFailure.printJSON(code: .usage, message: message(for: error)) }
                // Started with no argument at all (as the systemd units start them), argument-parser follows an
                // option group's error (a bad STOWAGE_HOME) with the whole help; the error and a pointer to
                // --help say it better.
                let name = configuration.commandName ?? "the command"
                let text =
                    CommandLine.arguments.count > 1
                    ? fullMessage(for: error)
                    : "Error: \(message(for: error))\n  See '\(name) --help' for more information."
                if !json { FileHandle.standardError.write(Data((text + "\n").utf8)) }
                Foundation.exit(2)
            }
            // Help, --version and a plain ExitCode are argument-parser's own: it prints (or not) and exits.
            if error is ExitCode || error is CleanExit || status == .success {
                exit(withError: error)
            }
            let (code, text) = CommandFailure.describe(error)
            if json {
                CommandFailure.printJSON(code: code, message: text)
            } else {
                // `internal` (anything without a code of its own) says nothing a person can act on: left out.
                let tag = code == .internal ? "" : "[\(code.rawValue)] "
                FileHandle.standardError.write(Data("Error: \(tag)\(text)\n".utf8))
            }
            Foundation.exit(status == .success ? 1 : status.rawValue)
        }
    }
}

/// How a failed command is told: its code and message, as one JSON object or one line.
enum CommandFailure {
    /// The code and message of any error: a ``CodedError`` says both; anything else is `internal`, with its text.
    static func describe(_ error: any Error) -> (ErrorCode, String) {
        if let coded = error as? any CodedError { return (coded.code, coded.message) }
        return (.internal, "\(error)")
    }

    /// `{"error": {"code": …, "message": …}}` on one line of stdout, as the gateway answers errors.
    static func printJSON(code: ErrorCode, message: String) {
        struct Body: Encodable { let error: TitleError }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(Body(error: TitleError(code: code, message: message)))) ?? Data()
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// Whether `flag` is among the arguments (before a `--` that ends the options).
    static func argumentsContain(_ flag: String) -> Bool {
        CommandLine.arguments.dropFirst().prefix { $0 != "--" }.contains(flag)
    }
}
