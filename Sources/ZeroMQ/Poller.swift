import CZeroMQ

/// What to wait for on a poll item.
public struct PollEvents: OptionSet, Sendable {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }
    public static let readable = PollEvents(rawValue: Int16(ZMQ_POLLIN))
    public static let writable = PollEvents(rawValue: Int16(ZMQ_POLLOUT))
}

/// One thing to poll: a socket or a plain file descriptor (e.g. an eventfd used to wake the loop).
public enum PollItem {
    case socket(Socket, PollEvents)
    case fileDescriptor(Int32, PollEvents)
}

/// `zmq_poll` over sockets and file descriptors.
public enum Poller {
    /// Waits up to `timeoutMilliseconds` (-1 = forever) and returns, per item, the events that are ready.
    /// An interrupted wait (`EINTR`) returns no events rather than throwing.
    public static func poll(_ items: [PollItem], timeoutMilliseconds: Int) throws(ZMQError) -> [PollEvents] {
        var raw = items.map { item -> zmq_pollitem_t in
            switch item {
            case .socket(let socket, let events):
                return zmq_pollitem_t(socket: socket.rawHandle, fd: 0, events: events.rawValue, revents: 0)
            case .fileDescriptor(let fd, let events):
                return zmq_pollitem_t(socket: nil, fd: fd, events: events.rawValue, revents: 0)
            }
        }
        let count = Int32(raw.count)
        let rc = zmq_poll(&raw, count, timeoutMilliseconds)
        if rc < 0 {
            let error = ZMQError.last("zmq_poll")
            if error.isInterrupted { return Array(repeating: [], count: items.count) }
            throw error
        }
        return raw.map { PollEvents(rawValue: $0.revents) }
    }
}
