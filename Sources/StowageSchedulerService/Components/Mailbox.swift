import Synchronization

/// Messages between the scheduler's loop and a side task (the catalogue fetcher, notification delivery, host
/// probes, bundle copies): one side posts, the other takes everything posted so far. The loop alone touches the
/// store and the titles; a side task alone does its slow I/O. A pair of mailboxes is a two-way channel.
///
/// Taking is non-blocking, so the loop reads its mailboxes at its ticks and never waits on a side task.
package final class Mailbox<Message: Sendable>: Sendable {
    private let waiting = Mutex<[Message]>([])

    package init() {}

    /// Leaves a message for the other side.
    package func post(_ message: Message) { waiting.withLock { $0.append(message) } }

    /// Leaves several messages at once, in order.
    package func post(contentsOf messages: [Message]) { waiting.withLock { $0.append(contentsOf: messages) } }

    /// Everything posted since the last call, oldest first.
    package func take() -> [Message] {
        waiting.withLock { messages in
            defer { messages.removeAll() }
            return messages
        }
    }

    /// Whether anything waits (for tests and for a side task's idle check).
    package var isEmpty: Bool { waiting.withLock { $0.isEmpty } }
}
