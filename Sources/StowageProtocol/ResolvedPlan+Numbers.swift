/// The numbers a plan carries, checked against ``OutsideNumbers``: a plan arrives from a worker's frame, a peer's
/// manifest or a bundle, and the scheduler sums and compares its sizes (the disk ledger, the quota), so a value no
/// real title has (`bytesEstimate` 9223372036854775807) is refused where the plan is read, naming the field.
extension ResolvedPlan {
    /// The first number out of range, or nil.
    public var numberProblem: NumberRangeError? {
        do throws(NumberRangeError) {
            _ = try OutsideNumbers.bytes("bytesEstimate").checkIfPresent(bytesEstimate)
            if resources.count > Self.maxResources {
                throw NumberRangeError(
                    field: "resources", value: "\(resources.count)", allowed: "0…\(Self.maxResources) files")
            }
            for resource in resources {
                try resource.checkNumbers()
            }
            if let pathways, pathways.count > 16 || pathways.contains(where: { $0.origins.count > 64 }) {
                throw NumberRangeError(
                    field: "pathways", value: "\(pathways.count)", allowed: "0…16 pathways of at most 64 origins")
            }
            for bookmark in bookmarks where !(bookmark.position.magnitude <= OutsideNumbers.maxSeconds) {
                throw OutsideNumbers.seconds("bookmarks[].position").error("\(bookmark.position)")
            }
            return nil
        } catch {
            return error
        }
    }

    /// The most files a plan may list: the playlist parsers' segment bound with room for keys, maps and renditions.
    public static let maxResources = 1_000_000
}

extension PlannedResource {
    /// Its byte range and duration within ``OutsideNumbers``.
    func checkNumbers() throws(NumberRangeError) {
        _ = try OutsideNumbers.bytes("resources[].rangeOffset").checkIfPresent(rangeOffset)
        _ = try OutsideNumbers.bytes("resources[].rangeLength").checkIfPresent(rangeLength)
        guard duration.isFinite else { throw OutsideNumbers.seconds("resources[].duration").error("\(duration)") }
        _ = try OutsideNumbers.seconds("resources[].duration").check(duration)
    }
}
