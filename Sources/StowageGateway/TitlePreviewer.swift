import StowageProtocol

/// Looks at a source URL for the console's add-title form: its variants and the estimate of a selection, fetched
/// under `scope` (the scheduler's rules, ``ConsoleBackend/fetchScope(url:)``). The process passes one made with
/// `StowageFetch` (`TitleProbe`, as `stowctl variants` and `estimate` use), which this library does not link.
public protocol TitlePreviewer: Sendable {
    func preview(_ work: ResolveWork, scope: FetchScope) async throws -> TitlePreview
}
