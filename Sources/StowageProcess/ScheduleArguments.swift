import ArgumentParser
import StowageProtocol

/// `--fill-window` (scheduler) and `submit --window` (stowctl) take `HH:MM-HH:MM[,HH:MM-HH:MM...]`; a bad one is a
/// usage error that names the text.
extension FillSchedule: ExpressibleByArgument {
    public init?(argument: String) { try? self.init(parsing: argument) }

    public static var defaultCompletionKind: CompletionKind { .default }
}

/// `--bandwidth-schedule WINDOW=RATE,...,*=RATE` (bytes per second, K/M/G decimal, or unlimited).
extension BandwidthSchedule: ExpressibleByArgument {
    public init?(argument: String) { try? self.init(parsing: argument) }
}
