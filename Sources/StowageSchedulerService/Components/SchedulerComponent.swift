import StowageProtocol
import StowageStore

/// A concern of the scheduler (the catalogue, the quota, notifications, bundles, …) as one object: it owns its
/// state and its timers, answers its own client operations, and acts on titles only through ``TitleDesk``.
///
/// The service keeps the loop, the title lifecycle and the worker leases; the ``ComponentRegistry`` routes to
/// each component what is its own (a request it answers, a tick, a title's event, a title gone). Adding a concern
/// is a folder with its component, one registration line in ``SchedulerService/makeComponents(_:)`` and its
/// messages: nothing else of the scheduler changes. Decisions stay pure values in `StowageSchedulerCore` (state +
/// event → effects, on an injected clock); the component is their thin interpreter.
///
/// Every requirement has a default that does nothing, so a component writes only what it takes part in.
protocol SchedulerComponent: AnyObject {
    /// Its name in logs and in the registry's checks.
    var name: String { get }
    /// Before the first message, once recovery is done (the store says what was under way).
    func start() throws
    /// Every pass of the loop, `now` monotonic: the component runs what its own timers say is due.
    func tick(now: Double)
    /// Every client's request once it is authorised, before any answer (a component that watches an operation it
    /// does not answer: plays note `play` and `key`); nothing it does changes the reply.
    func see(_ request: ComponentRequest)
    /// A client's request: the reply when the operation is the component's, nil when it is not (the registry asks
    /// the next one). Thrown ``TitleError``s reach the client as they are.
    func answer(_ request: ComponentRequest) throws -> ReplyBody?
    /// Every event recorded of a title (``TitleDesk/record(_:)``), inside the transaction that recorded it.
    func observe(_ event: TitleHappening) throws
    /// The title stopped or ended: forget what is kept for it.
    func forget(_ token: String)
    /// Adds what the component knows of a title to its status (`status --json`'s fields of the concern).
    func describe(_ title: TitleRecord, into status: inout TitleStatus)
}

extension SchedulerComponent {
    func start() throws {}
    func tick(now: Double) {}
    func see(_ request: ComponentRequest) {}
    func answer(_ request: ComponentRequest) throws -> ReplyBody? { nil }
    func observe(_ event: TitleHappening) throws {}
    func forget(_ token: String) {}
    func describe(_ title: TitleRecord, into status: inout TitleStatus) {}
}

/// A client operation as a component sees it: what was asked, by whom, from which socket identity (for
/// subscriptions and replies that come later).
struct ComponentRequest {
    var operation: ClientOperation
    var caller: Caller
    var identity: [UInt8]
}
