import Logging
import StowageCatalog
import StowageProtocol

/// `stowage-scheduler --catalog`, `--catalog-key`, `--catalog-interval`, `--catalog-grace`.
public struct CatalogOptions: Sendable {
    /// The catalogue's URL or file (nil: none; `stowctl catalog apply` still works).
    public var location: String?
    /// The signature rule (the `--catalog-key` public keys).
    public var gate = CatalogGate(keys: [])
    /// Seconds between two fetches of `location`.
    public var interval: Double = 15 * 60
    /// Seconds a title stays after it left the catalogue.
    public var grace: Double = 24 * 3600
    /// Where the fetcher hands what it fetched to the scheduler's loop (set with `location`).
    public var feed: CatalogFeed?

    public init() {}

    /// The side task that fetches `location` every `interval` and hands it to the loop through `feed` (nil without
    /// a location): a service of the scheduler's group. Its answers are held to `pace` (a catalogue's total cap).
    func fetcher(logger: Logger, pace: BodyLimits) -> CatalogFetcher? {
        guard let location, let feed else { return nil }
        return CatalogFetcher(
            location: location, interval: interval, feed: feed, logger: logger,
            limits: pace.total(BodyLimits.catalogTotal))
    }
}
