import StowageProtocol
import StowageStore

/// The component that owns a kind of wait (``SuspensionRule``): it releases the wait by itself, and answers
/// whether an operator's `resume` is admitted now (for the rows marked `ifAdmitted`).
protocol SuspensionOwner: AnyObject {
    /// The wait it owns.
    var owns: SuspendedReason { get }
    /// Why `title` must keep waiting now (nil: it may resume). May act to make room (the quota evicts).
    func resumeRefusal(_ title: TitleRecord) throws -> String?
}
