import StowageProtocol

/// The titles a catalogue added, by entry id: the copy devices get (`current`) and one coming to replace it
/// (`incoming`, not leaving). Built once per pass, so the reconciler and the report look each entry up in constant
/// time: a search of every member for every entry made a catalogue of many titles cost the loop its square.
public struct CatalogMemberIndex: Sendable {
    public private(set) var current: [String: CatalogMember] = [:]
    public private(set) var incoming: [String: CatalogMember] = [:]

    /// The first member of each role per id, in `members`' order.
    public init(_ members: [CatalogMember]) {
        for member in members {
            switch member.role {
            case .current where current[member.id] == nil:
                current[member.id] = member
            case .incoming where member.removeAt == nil && incoming[member.id] == nil:
                incoming[member.id] = member
            default:
                break
            }
        }
    }
}
