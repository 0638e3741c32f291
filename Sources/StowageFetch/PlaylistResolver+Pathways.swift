import Foundation
import StowageHLS
import StowageProtocol

/// A master playlist with several pathways (content steering or redundant variants, ``HLSPathways``): the title is
/// planned on the first pathway that answers, and every other pathway's copy of each chosen playlist gives the files
/// their alternates, so one host's failure sends a fetch to the next pathway instead of making the title wait.
extension PlaylistResolver {
    /// Plans `full` (a master playlist) on its pathways in order; a pathway whose playlists cannot be fetched gives
    /// way to the next. A live recording keeps one pathway (its reloads name new files the plan never saw).
    func planMaster(_ full: MasterPlaylist, _ work: ResolveWork, live: Bool) async throws -> ResolvedPlan {
        let pathways = HLSPathways(full, priority: await steeringPriority(full, work))
        var firstFailure: TaskFailure?
        for (n, pathway) in pathways.pathways.enumerated() {
            let master = full.keeping(pathway.variants, pathway: pathway.name)
            do {
                let choice = try RenditionSelector.select(master, work.selection)
                let inputs = try await inputs(choice, master, work)
                var iFrames: MediaPlaylist?
                if let stream = choice.iFrames, !live, work.range == nil {
                    iFrames = try await media(stream.uri, base: master.url, line: stream.line, work)
                }
                var plan = try OfflinePlanner.plan(
                    master: master, choice: choice, inputs: inputs, live: live, iFrames: iFrames, range: work.range)
                if pathways.hasAlternatives && !live {
                    await addAlternates(to: &plan, choice: choice, inputs: inputs, primary: n, pathways, full, work)
                }
                return plan
            } catch let failure as TaskFailure where failure.isSourceFailure && n + 1 < pathways.pathways.count {
                firstFailure = firstFailure ?? failure
            } catch var failure as TaskFailure {
                if let first = firstFailure {
                    failure = first
                    failure.message +=
                        " (and on every other pathway: \(pathways.pathways.map(\.name).joined(separator: ", ")))"
                }
                throw failure
            }
        }
        throw firstFailure ?? TaskFailure(code: .playlist, message: "\(full.url): no pathway", retryable: false)
    }

    /// The media playlists of `choice`: the variant's, then each audio and subtitle rendition's.
    func inputs(
        _ choice: RenditionSelector.Choice, _ master: MasterPlaylist, _ work: ResolveWork
    ) async throws -> [OfflinePlanner.Input] {
        var inputs = [
            OfflinePlanner.Input(
                kind: .video,
                playlist: try await media(choice.variant.uri, base: master.url, line: choice.variant.line, work),
                rendition: nil)
        ]
        for r in choice.audio {
            guard let uri = r.uri else { continue }
            inputs.append(
                .init(kind: .audio, playlist: try await media(uri, base: master.url, line: r.line, work), rendition: r))
        }
        for r in choice.subtitles {
            guard let uri = r.uri else { continue }
            inputs.append(
                .init(
                    kind: .subtitles, playlist: try await media(uri, base: master.url, line: r.line, work), rendition: r
                ))
        }
        return inputs
    }

    /// Gives the plan's files the URLs of their copies on every other pathway, and names the pathways
    /// (``PlannedPathway``) for `status`. A pathway whose copy cannot be fetched or does not line up adds nothing:
    /// it is an alternative, not a condition of the title.
    func addAlternates(
        to plan: inout ResolvedPlan, choice: RenditionSelector.Choice, inputs: [OfflinePlanner.Input], primary: Int,
        _ pathways: HLSPathways, _ full: MasterPlaylist, _ work: ResolveWork
    ) async {
        var pairings: [[PathwayAlternates.FileKey: String]] = []
        let mine = Set(plan.resources.compactMap { PlannedPathway.origin(of: $0.url) })
        var named = [PlannedPathway(name: pathways.pathways[primary].name, origins: mine.sorted())]
        for (n, pathway) in pathways.pathways.enumerated() where n != primary {
            guard let variant = pathways.equivalent(of: choice.variant, in: pathway) else { continue }
            var found: [PathwayAlternates.FileKey: String] = [:]
            for input in inputs {
                let uri: String?
                var line = variant.line
                if let rendition = input.rendition {
                    let twin = HLSPathways.equivalent(of: rendition, for: variant, in: full)
                    uri = twin?.uri
                    line = twin?.line ?? line
                } else {
                    uri = variant.uri
                }
                guard let uri, let copy = try? await media(uri, base: full.url, line: line, work),
                    let pairs = PathwayAlternates.pairs(input.playlist, copy)
                else { continue }
                found.merge(pairs) { a, _ in a }
            }
            var origins = Set(found.values.compactMap { PlannedPathway.origin(of: $0) })
            if found.isEmpty {
                origins = Set(
                    pathway.variants.compactMap { v in
                        (try? URIResolver.resolve(v.uri, against: full.url)).flatMap { PlannedPathway.origin(of: $0) }
                    })
            } else {
                pairings.append(found)
            }
            named.append(PlannedPathway(name: pathway.name, origins: origins.sorted()))
        }
        PathwayAlternates.apply(pairings, to: &plan)
        // Named even when no other pathway lines up (or answers now): status says where the files come from.
        plan.pathways = named
    }

    /// The steering server's `PATHWAY-PRIORITY` (HLS content steering: a JSON document), read once when the title
    /// is planned; nil without a server, or when it does not answer or answers something else (the tag's order
    /// stands).
    func steeringPriority(_ master: MasterPlaylist, _ work: ResolveWork) async -> [String]? {
        guard let uri = master.steering?.serverURI,
            let (text, _) = try? await fetcher.fetchText(uri, headers: work.headers),
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let priority = object["PATHWAY-PRIORITY"] as? [String]
        else { return nil }
        return Array(priority.filter { !$0.isEmpty && $0.count <= 128 }.prefix(HLSPathways.maxPathways * 2))
    }
}
