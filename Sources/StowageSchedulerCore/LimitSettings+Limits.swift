import StowageProtocol

extension LimitSettings {
    /// The concurrency limits of a complete layer (missing fields take the defaults).
    public var limits: Limits {
        let d = Self.defaults
        return Limits(
            titlesAtOnce: titles ?? d.titles!, perTitle: perTitle ?? d.perTitle!,
            perHost: perHost ?? d.perHost!, licenses: licenses ?? d.licenses!)
    }
}
