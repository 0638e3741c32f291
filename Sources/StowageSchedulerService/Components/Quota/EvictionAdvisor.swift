import StowageSchedulerCore

/// A concern that changes how the quota sees a title (the catalogue pins titles and marks those leaving it; plays
/// protect what is being watched). The quota asks every advisor about every holding, so it reads no other
/// concern's state, and a new reason to keep a title is one advisor.
protocol EvictionAdvisor: AnyObject {
    /// Adjusts `holdings` with what this concern knows (all at once: an advisor's sets are built once a pass);
    /// `now` is monotonic.
    func advise(_ holdings: inout [EvictionPolicy.Holding], now: Double)
}
