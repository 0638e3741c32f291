/// Expands a Representation into its ordered segments (SegmentTemplate with or without SegmentTimeline,
/// SegmentList, SegmentBase, or a single file), resolving URLs against every BaseURL alternative.
public enum SegmentAddresser {
    /// More segments than this in one Representation of one Period are refused.
    public static let maxSegments = 1_000_000

    /// The addressing of `representation` in `period`: its segments, or (SegmentBase with an `indexRange`) the
    /// index to fetch first.
    public static func address(_ representation: Representation, in period: Period) throws(DASHError) -> Addressing {
        let bases = representation.baseURLs
        guard !bases.isEmpty else {
            throw DASHError(.refusedURI, element: "BaseURL", "Representation '\(representation.id)' has no URL")
        }
        switch representation.segmentInformation {
        case .template(let template):
            return .segments(try expand(template, representation, period: period))
        case .list(let list):
            return .segments(try expand(list, bases: bases, period: period))
        case .base(let base):
            if base.indexRange != nil, representation.mimeType?.lowercased().hasSuffix("/webm") == true {
                throw SidxBox.webMCues(representation.id)
            }
            return try expand(base, bases: bases, period: period)
        case .none:
            return .segments(single(bases: bases, period: period))
        }
    }

    // MARK: SegmentTemplate

    private static func expand(
        _ template: SegmentTemplate, _ representation: Representation, period: Period
    ) throws(DASHError) -> RepresentationSegments {
        guard let media = template.media else { throw DASHError.missing("SegmentTemplate", "media") }
        let bases = representation.baseURLs
        let timescale = template.timescale ?? 1
        let offset = template.presentationTimeOffset ?? 0
        let startNumber = template.startNumber ?? 1
        var values = URLTemplate.Values(representationID: representation.id, bandwidth: representation.bandwidth)

        let initialization = try initialization(template, representation)

        let slots: [SegmentTimeline.Slot]
        if let timeline = template.timeline {
            let end = periodEnd(period, timescale: timescale, offset: offset)
            slots = SegmentTimeline.cut(try timeline.expand(end: end, limit: maxSegments), at: end)
        } else {
            guard let duration = template.duration else {
                throw DASHError.missing("SegmentTemplate", "duration", "without a SegmentTimeline it is required")
            }
            slots = try fixedSlots(
                duration: duration, timescale: timescale, offset: offset, startNumber: startNumber,
                endNumber: template.endNumber, period: period, element: "SegmentTemplate")
        }
        var segments: [MediaSegment] = []
        segments.reserveCapacity(slots.count)
        for (index, slot) in slots.enumerated() {
            let (number, overflow) = startNumber.addingReportingOverflow(UInt64(index))
            guard !overflow else {
                throw DASHError.invalid("SegmentTemplate", "startNumber", "\(startNumber)", "usable")
            }
            values.number = number
            values.time = slot.time
            segments.append(
                segment(
                    try location(media, values, bases: bases), slot: slot, timescale: timescale, offset: offset,
                    number: number))
        }
        return RepresentationSegments(
            initialization: initialization, timescale: timescale, presentationTimeOffset: offset, segments: segments)
    }

    /// A template's initialization segment: `@initialization` expanded, else its `Initialization` element; nil
    /// when it has neither (self-initialising segments). Shared by static titles and live recordings.
    static func initialization(
        _ template: SegmentTemplate, _ representation: Representation
    ) throws(DASHError) -> SegmentLocation? {
        if let text = template.initialization {
            let values = URLTemplate.Values(representationID: representation.id, bandwidth: representation.bandwidth)
            let path = try URLTemplate.expand(text, values, attribute: "initialization")
            return SegmentLocation(
                urls: try BaseURLResolver.resolve(path, against: representation.baseURLs, element: "SegmentTemplate"))
        }
        return try template.initializationElement.map { element throws(DASHError) in
            try location(element, bases: representation.baseURLs, element: "Initialization")
        }
    }

    /// A media segment's location: `SegmentTemplate@media` with `values`, against every BaseURL alternative.
    static func location(
        _ media: String, _ values: URLTemplate.Values, bases: [String]
    ) throws(DASHError) -> SegmentLocation {
        let path = try URLTemplate.expand(media, values, attribute: "media")
        return SegmentLocation(urls: try BaseURLResolver.resolve(path, against: bases, element: "SegmentTemplate"))
    }

    /// Segments of a fixed `duration`: up to `endNumber`, else as many as cover the Period (the last one cut
    /// at the Period's end).
    private static func fixedSlots(
        duration: UInt64, timescale: UInt64, offset: UInt64, startNumber: UInt64, endNumber: UInt64?,
        period: Period, element: String
    ) throws(DASHError) -> [SegmentTimeline.Slot] {
        let count: UInt64
        let periodTicks = period.duration.map { $0 * Double(timescale) }
        if let endNumber {
            guard endNumber >= startNumber else {
                throw DASHError.invalid(element, "endNumber", "\(endNumber)", "at least startNumber (\(startNumber))")
            }
            count = endNumber - startNumber + 1
        } else {
            guard let periodTicks else {
                throw DASHError.missing(
                    "Period", "duration", "\(element)@duration needs the Period's (or the MPD's) duration")
            }
            let exact = periodTicks / Double(duration)
            guard exact.isFinite, exact <= Double(maxSegments) else {
                throw DASHError(
                    .tooLarge, element: element, attribute: "duration",
                    "\(element)@duration=\(duration) makes more than \(maxSegments) segments")
            }
            count = UInt64((exact - 1e-9).rounded(.up).clamped(0, Double(maxSegments)))
        }
        guard count <= UInt64(maxSegments) else {
            throw DASHError(
                .tooLarge, element: element, attribute: "endNumber", "\(element) has more than \(maxSegments) segments")
        }
        var slots: [SegmentTimeline.Slot] = []
        slots.reserveCapacity(Int(count))
        for index in 0..<count {
            let (start, overflow) = index.multipliedReportingOverflow(by: duration)
            let time = offset.addingReportingOverflow(start)
            guard !overflow, !time.overflow else {
                throw DASHError.invalid(element, "duration", "\(duration)", "usable: segment times overflow")
            }
            var length = duration
            if let periodTicks, index == count - 1, endNumber == nil {
                length = min(duration, max(1, ticks(periodTicks - Double(start))))
            }
            slots.append(SegmentTimeline.Slot(time: time.partialValue, duration: length))
        }
        // An `endNumber` past the Period's end names segments the presentation does not have.
        return endNumber == nil
            ? slots : SegmentTimeline.cut(slots, at: periodEnd(period, timescale: timescale, offset: offset))
    }

    /// The Period's end in the Representation's media time (`offset` plus the Period's duration), nil when the
    /// MPD does not tell; the Period's duration comes from `Period@duration`, the next Period's start, or
    /// `MPD@mediaPresentationDuration` (see `MPDParser`).
    private static func periodEnd(_ period: Period, timescale: UInt64, offset: UInt64) -> UInt64? {
        period.duration.map {
            let (end, overflow) = offset.addingReportingOverflow(ticks($0 * Double(timescale)))
            return overflow ? UInt64.max : end
        }
    }

    private static func segment(
        _ location: SegmentLocation, slot: SegmentTimeline.Slot, timescale: UInt64, offset: UInt64, number: UInt64?
    ) -> MediaSegment {
        let scale = Double(timescale)
        return MediaSegment(
            location: location, start: (Double(slot.time) - Double(offset)) / scale,
            duration: Double(slot.duration) / scale, durationTicks: slot.duration, number: number, time: slot.time)
    }

    // MARK: SegmentList

    private static func expand(
        _ list: SegmentList, bases: [String], period: Period
    ) throws(DASHError) -> RepresentationSegments {
        guard !list.items.isEmpty else {
            throw DASHError(.malformed, element: "SegmentList", "SegmentList has no SegmentURL")
        }
        guard list.items.count <= maxSegments else {
            throw DASHError(.tooLarge, element: "SegmentList", "SegmentList has more than \(maxSegments) SegmentURLs")
        }
        let timescale = list.timescale ?? 1
        let offset = list.presentationTimeOffset ?? 0
        let startNumber = list.startNumber ?? 1
        var slots: [SegmentTimeline.Slot]
        if let timeline = list.timeline {
            let end = periodEnd(period, timescale: timescale, offset: offset)
            let all = try timeline.expand(end: end, limit: maxSegments)
            guard all.count >= list.items.count else {
                throw DASHError(
                    .malformed, element: "SegmentTimeline",
                    "SegmentList has \(list.items.count) SegmentURLs but its SegmentTimeline only \(all.count) S")
            }
            slots = SegmentTimeline.cut(all, at: end)
        } else if let duration = list.duration {
            // The list, not the period, says how many segments there are; the last one ends with the period.
            slots = []
            for index in list.items.indices {
                let (start, overflow) = UInt64(index).multipliedReportingOverflow(by: duration)
                let time = offset.addingReportingOverflow(start)
                guard !overflow, !time.overflow else {
                    throw DASHError.invalid("SegmentList", "duration", "\(duration)", "usable: segment times overflow")
                }
                slots.append(SegmentTimeline.Slot(time: time.partialValue, duration: duration))
            }
            if let length = period.duration, let last = slots.indices.last {
                let remaining = length * Double(timescale) - Double(last) * Double(duration)
                if remaining > 0, remaining < Double(duration) { slots[last].duration = max(1, ticks(remaining)) }
            }
        } else if list.items.count == 1, let length = period.duration {
            slots = [SegmentTimeline.Slot(time: offset, duration: max(1, ticks(length * Double(timescale))))]
        } else {
            throw DASHError.missing("SegmentList", "duration", "needed when it lists several SegmentURLs")
        }
        var segments: [MediaSegment] = []
        segments.reserveCapacity(list.items.count)
        // A timeline cut at the Period's end drops the SegmentURLs past it too.
        for (index, item) in list.items.prefix(slots.count).enumerated() {
            let urls = try item.media.map { m throws(DASHError) in
                try BaseURLResolver.resolve(m, against: bases, element: "SegmentURL")
            }
            segments.append(
                segment(
                    SegmentLocation(urls: urls ?? bases, range: item.mediaRange), slot: slots[index],
                    timescale: timescale, offset: offset, number: startNumber &+ UInt64(index)))
        }
        return RepresentationSegments(
            initialization: try list.initialization.map { i throws(DASHError) in
                try location(i, bases: bases, element: "Initialization")
            },
            timescale: timescale, presentationTimeOffset: offset, segments: segments)
    }

    // MARK: SegmentBase and single files

    private static func expand(_ base: SegmentBase, bases: [String], period: Period) throws(DASHError) -> Addressing {
        guard let indexRange = base.indexRange else { return .segments(single(bases: bases, period: period)) }
        var initialization = try base.initialization.map { i throws(DASHError) in
            try location(i, bases: bases, element: "Initialization")
        }
        // Without an Initialization element, the initialization segment is what comes before the index.
        if initialization == nil, indexRange.offset > 0 {
            initialization = SegmentLocation(urls: bases, range: SegmentByteRange(offset: 0, length: indexRange.offset))
        }
        return .needsIndex(
            IndexRequest(
                index: SegmentLocation(urls: bases, range: indexRange), initialization: initialization,
                timescale: base.timescale ?? 1, presentationTimeOffset: base.presentationTimeOffset ?? 0,
                periodDuration: period.duration))
    }

    /// The whole file as one segment lasting the Period (its initialization, if any, inside it).
    private static func single(bases: [String], period: Period) -> RepresentationSegments {
        let length = period.duration ?? 0
        let millis = ticks(length * 1000)
        return RepresentationSegments(
            initialization: nil, timescale: 1000,
            segments: [
                MediaSegment(
                    location: SegmentLocation(urls: bases), start: 0, duration: length, durationTicks: millis,
                    number: nil, time: 0)
            ])
    }

    private static func location(
        _ initialization: SegmentInitialization, bases: [String], element: String
    ) throws(DASHError) -> SegmentLocation {
        let urls = try initialization.sourceURL.map { s throws(DASHError) in
            try BaseURLResolver.resolve(s, against: bases, element: element)
        }
        return SegmentLocation(urls: urls ?? bases, range: initialization.range)
    }
}

extension Double {
    /// The value limited to `low...high`.
    func clamped(_ low: Double, _ high: Double) -> Double { Swift.min(Swift.max(self, low), high) }
}
