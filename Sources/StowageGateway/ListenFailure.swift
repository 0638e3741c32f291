import Foundation
import NIOCore
import StowageProtocol

/// The gateway could not listen where it was told: the error names the address and what to do, where NIO's
/// own says only "Address already in use".
public struct ListenFailure: Error, CustomStringConvertible, CodedError {
    public let message: String
    public var code: ErrorCode { .io }
    public var description: String { message }

    /// `error` explained when it is a failure to bind `host:port`; nil for any other error.
    public static func explaining(_ error: any Error, host: String, port: Int) -> ListenFailure? {
        guard let io = error as? IOError else { return nil }
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        switch io.errnoCode {
        case EADDRINUSE:
            return ListenFailure(
                message: "cannot listen on \(address): the address is already in use (another gateway, or "
                    + "another program: `ss -ltnp 'sport = :\(port)'` names it); choose another --listen port")
        case EADDRNOTAVAIL:
            return ListenFailure(
                message: "cannot listen on \(address): no interface of this machine has that address; use one "
                    + "of its addresses, 0.0.0.0 or 127.0.0.1")
        case EACCES:
            return ListenFailure(
                message: "cannot listen on \(address): permission denied (ports below 1024 need privileges); "
                    + "choose a port of 1024 or more")
        default:
            return nil
        }
    }
}
