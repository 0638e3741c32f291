import Logging
import StowageProtocol
import StowageStore

/// The scheduler's components, in registration order: the one place that routes requests, ticks, title events and
/// forgetting to them (the zguide's broker: a loop and a dispatch).
final class ComponentRegistry {
    private(set) var all: [any SchedulerComponent] = []
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Adds a component; a name is registered once (a second one is a mistake in the registration list, logged).
    func register(_ component: any SchedulerComponent) {
        guard !all.contains(where: { $0.name == component.name }) else {
            assertionFailure("component \(component.name) registered twice")
            return logger.error(
                "a component is registered twice; the second is ignored", metadata: ["name": "\(component.name)"])
        }
        all.append(component)
    }

    /// The first component of type `T` (the pipeline's hooks consult a concern by its type).
    func first<T: SchedulerComponent>(_ type: T.Type) -> T? {
        all.lazy.compactMap { $0 as? T }.first
    }

    func start() throws {
        for component in all { try component.start() }
    }

    func tick(now: Double) {
        for component in all { component.tick(now: now) }
    }

    /// Shows a request to every component (before one answers it).
    func see(_ request: ComponentRequest) {
        for component in all { component.see(request) }
    }

    /// The reply of the component whose operation it is, nil when none claims it.
    func answer(_ request: ComponentRequest) throws -> ReplyBody? {
        for component in all {
            if let reply = try component.answer(request) { return reply }
        }
        return nil
    }

    func observe(_ event: TitleHappening) throws {
        for component in all { try component.observe(event) }
    }

    func forget(_ token: String) {
        for component in all { component.forget(token) }
    }

    /// Why the concern that owns `reason` (``SuspensionOwner``) keeps the title waiting now (nil: it may resume).
    func resumeRefusal(_ title: TitleRecord, waitingFor reason: SuspendedReason) throws -> String? {
        for owner in all.compactMap({ $0 as? any SuspensionOwner }) where owner.owns == reason {
            if let why = try owner.resumeRefusal(title) { return why }
        }
        return nil
    }

    func describe(_ title: TitleRecord, into status: inout TitleStatus) {
        for component in all { component.describe(title, into: &status) }
    }
}
