import Foundation
import StowageCatalog
import StowageProtocol
import StowageRuntime
import StowageSchedulerCore
import StowageStore

/// The catalogue (`--catalog`, `stowctl catalog apply|status`): what arrives goes through ``CatalogGate``
/// (signature, form, version), the last good one is stored, and ``CatalogReconciler``'s effects are carried out.
/// The decisions are theirs; this component holds the book, writes it, and submits and deletes through the desk.
///
/// It owns the book (``CatalogBook``, stored whole in the settings so a restart without network still knows it),
/// its 2 s convergence timer and the slices of a large catalogue; it tells the quota which titles it pins and which
/// are leaving it (``EvictionAdvisor``), and asks the plays which titles are being watched (none is deleted then).
package final class CatalogComponent: SchedulerComponent, EvictionAdvisor, TitleIDClaimant {
    let name = "catalog"
    static let setting = "catalog"
    /// The longest one convergence pass carries out effects (each a submit, a swap or a delete writes the store):
    /// a catalogue of many titles is applied in slices of this, one per pass, so the loop answers between them.
    static let sliceSeconds = 0.2
    /// The most effects one pass carries out (about 0.25 s of submits in a debug build), whatever the clock says.
    package static let sliceEffects = 100

    let context: ComponentContext
    let options: CatalogOptions
    /// Which titles devices are playing (the catalogue deletes none of them).
    let plays: PlaysComponent
    /// The catalogue in force and the titles it added.
    var book = CatalogBook()
    /// The last pass stopped at the end of its slice with effects left: the next loop turn goes on.
    var unfinished = false
    /// What arrived and was converged on is looked at every 2 s.
    private var due = Every(seconds: 2)
    /// When each refusal (of a catalogue, an entry's submit, an entry's peer source) was last logged.
    var refusalLog = RateLimitedLog(interval: 60)

    init(context: ComponentContext, options: CatalogOptions, plays: PlaysComponent) {
        self.context = context
        self.options = options
        self.plays = plays
    }

    /// The stored book (so a restart without network still knows the catalogue).
    func start() throws {
        guard let text = try? context.store.setting(Self.setting) else { return }
        do {
            book = try JSONDecoder().decode(CatalogBook.self, from: Data(text.utf8))
            context.logger.info(
                "catalogue in force",
                metadata: ["version": "\(book.catalog?.version ?? 0)", "source": "\(book.source ?? "-")"])
        } catch {
            context.logger.error(
                "the stored catalogue cannot be read; none is in force", metadata: ["error": "\(error)"])
        }
    }

    /// Every 2 s what the fetcher brought, then a convergence pass; between two, the rest of an unfinished pass
    /// (a large catalogue goes on slice by slice, a loop turn and the requests that came between two).
    func tick(now: Double) {
        if due.isDue(now: now) {
            takeArrivals()
            reconcile()
        } else if unfinished {
            reconcile()
        }
    }

    func answer(_ request: ComponentRequest) throws -> ReplyBody? {
        switch request.operation {
        case .catalogApply(let document, let signature):
            return .catalog(try apply(document: document, signature: signature))
        case .catalogStatus:
            return .catalog(try report())
        default:
            return nil
        }
    }

    /// The catalogue's pins, and the titles leaving it (evicted first).
    func advise(_ holdings: inout [EvictionPolicy.Holding], now: Double) {
        let (pinned, leaving) = (book.pinnedTokens, book.leavingTokens)
        let kept = Dictionary(book.members.map { ($0.token, $0.keepUntil) }, uniquingKeysWith: { a, _ in a })
        for i in holdings.indices {
            holdings[i].keptUntil = kept[holdings[i].token] ?? nil
            holdings[i].pinned = holdings[i].pinned || pinned.contains(holdings[i].token)
            holdings[i].leftCatalog = holdings[i].leftCatalog || leaving.contains(holdings[i].token)
        }
    }

    /// Whether the catalogue in force lists `id` (a bundle may not bring a title under an id the catalogue fills).
    func lists(_ id: String) -> Bool {
        book.catalog?.titles.contains { $0.id == id } == true
    }

    /// An id of the catalogue in force is the catalogue's to fill, not a bundle's.
    func claim(onTitleID id: String) -> String? {
        lists(id) ? "an entry of this box's catalogue: the catalogue fills it, not a bundle" : nil
    }

    func save() throws {
        let data = try JSONEncoder().encode(book)
        try context.store.setSetting(Self.setting, String(decoding: data, as: UTF8.self))
    }

    /// `stowctl catalog apply`: the document and its signature as read from the file.
    private func apply(document: String, signature: String?) throws -> CatalogReport {
        guard let bytes = Data(base64Encoded: document) else {
            throw TitleError(code: .refused, message: "the catalogue did not arrive as base64")
        }
        if let refusal = receive(bytes, signature: signature.flatMap { Data(base64Encoded: $0) }, source: "apply") {
            throw TitleError(
                code: .refused,
                message: "catalogue refused (\(refusal.code.rawValue)): \(refusal.message); \(inForce)")
        }
        reconcile()
        return try report()
    }

    /// What stays after a refusal, in words.
    var inForce: String {
        book.catalog.map { "version \($0.version) stays in force" } ?? "none is in force"
    }

    /// `stowctl catalog status`.
    private func report() throws -> CatalogReport {
        var titles: [String: CatalogBook.TitleFacts] = [:]
        for member in book.members {
            guard let title = try context.store.title(member.token) else { continue }
            let error = title.errorCode.map {
                TitleError(code: ErrorCode(rawValue: $0) ?? .internal, message: title.errorMessage ?? "")
            }
            titles[member.token] = .init(state: title.state, error: error, suspendedReason: title.suspendedReason)
        }
        return book.report(titles: titles, operatorIDs: try storedTitles().operatorIDs, time: { iso8601($0) })
    }
}
