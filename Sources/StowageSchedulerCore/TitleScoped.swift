/// Memory the scheduler keeps per title: forgotten in one place when the title stops or ends
/// (``SchedulerMemory/forget(_:)``), so no concern keeps a title that is gone.
public protocol TitleScoped {
    /// Forgets everything kept for `token`.
    mutating func forget(_ token: String)
}

extension RetryQueue: TitleScoped {
    public mutating func forget(_ token: String) { forget(token: token) }
}

extension LiveReloads: TitleScoped {}
extension VerifyRuns: TitleScoped {}
extension URLRefreshPolicy: TitleScoped {}
