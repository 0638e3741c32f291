import Logging
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// What every component is built with: the desk it acts on titles through, the store (its own tables, and titles
/// to read), the clocks, the home and the logger.
struct ComponentContext {
    /// The service, as the narrow title interface (unowned: the service owns its components).
    unowned let desk: any TitleDesk
    let store: Store
    let clock: any SchedulerClock
    let home: StowageHome
    let logger: Logger

    init(desk: any TitleDesk, store: Store, clock: any SchedulerClock, home: StowageHome, logger: Logger) {
        self.desk = desk
        self.store = store
        self.clock = clock
        self.home = home
        self.logger = logger
    }
}
