extension LiveSegments {
    /// Where an available segment of `representation` is: `SegmentTemplate@media` with the slot's `$Number$` and
    /// `$Time$`, resolved against every BaseURL alternative (first preferred), as a static title's segments are.
    public func location(of slot: Slot, in representation: Representation) throws(DASHError) -> SegmentLocation {
        guard let media = template.media else { throw DASHError.missing("SegmentTemplate", "media") }
        let values = URLTemplate.Values(
            representationID: representation.id, bandwidth: representation.bandwidth, number: slot.number,
            time: slot.time)
        return try SegmentAddresser.location(media, values, bases: representation.baseURLs)
    }

    /// The initialization segment of `representation`, nil when it has none (self-initialising segments).
    public func initialization(of representation: Representation) throws(DASHError) -> SegmentLocation? {
        try SegmentAddresser.initialization(template, representation)
    }
}
