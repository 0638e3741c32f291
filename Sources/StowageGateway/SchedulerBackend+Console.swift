import StowageProtocol

extension SchedulerBackend: ConsoleBackend {
    public func submit(_ request: SubmitRequest) async throws -> String { try await self.request(.submit(request)) }
    public func stats() async throws -> SchedulerStats { try await request(.stats) }
    public func evictable() async throws -> [TitleStatus] { try await request(.evictable) }
    public func catalogStatus() async throws -> CatalogReport { try await request(.catalogStatus) }
    public func notifyStatus() async throws -> NotifyReport { try await request(.notifyStatus) }
    public func workers() async throws -> [WorkerInfo] { try await request(.workers) }
    public func fetchScope(url: String) async throws -> FetchScope { try await request(.fetchScope(url: url)) }
}
