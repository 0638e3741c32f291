import Foundation
import FuzzReplay
import StowageBundle
import StowageCatalog
import StowageLicensing
import StowageProtocol

/// libFuzzer target: the documents other parties send a box, on arbitrary bytes. The first byte chooses the reader;
/// the rest is the document:
/// 0 a peer's `manifest.json` (decoded, checked, planned by), 1 a bundle's `bundle.json`, 2 a catalogue, 3 license
/// terms and usage as a server, a bundle or the store gives them (and the license rules over them), 4 a plan as a
/// worker's frame carries it, 5 a `data:` key URI and a title path.
/// Anything but a clean return or a thrown error is a bug, and so is a document that passes its checks with a number
/// the scheduler would refuse (checked with a trap). Built by `Benchmarks/fuzz.sh` with `-sanitize=fuzzer`; built
/// normally it replays the files given as arguments (crashers, corpora).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDocuments(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let body = Data(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let decoder = JSONDecoder()
    switch data[0] % 6 {
    case 0:
        guard let manifest = try? decoder.decode(PeerManifest.self, from: body), manifest.problem == nil else { break }
        precondition(manifest.plan.numberProblem == nil, "a checked manifest plans out of range")
        _ = manifest.fillPlan
    case 1:
        _ = try? BundleManifest.decode(body)
    case 2:
        if let catalog = try? Catalog.decode(body) {
            for entry in catalog.titles { _ = entry.url.count }
        }
    case 3:
        let terms = try? decoder.decode(LicenseTerms.self, from: body)
        let usage = (try? decoder.decode(LicenseUsage.self, from: body)) ?? LicenseUsage()
        if let terms {
            _ = LicensePolicy.playsRemaining(terms, usage)
            _ = LicensePolicy.playTimeRemaining(terms, usage)
            _ = LicensePolicy.effectiveExpiry(terms, usage)
            _ = LicensePolicy.refusal(terms, usage, now: 1.8e9, clockRolledBack: false, startingPlay: true)
        }
        if let granted = try? decoder.decode(GrantedTerms.self, from: body) {
            _ = LicenseTerms(
                kind: LicenseTerms.Kind(rawValue: granted.kind.rawValue) ?? .none, requestedAt: granted.requestedAt,
                expiresAt: granted.expiresAt, playDurationSeconds: granted.playDurationSeconds,
                playCountLimit: granted.playCount, playTimeLimitSeconds: granted.playTimeSeconds)
        }
    case 4:
        if let plan = try? decoder.decode(ResolvedPlan.self, from: body) {
            precondition(plan.numberProblem == nil, "a decoded plan out of range")
        }
    default:
        let text = String(decoding: body, as: UTF8.self)
        _ = try? DataURI.decode(text, expectedBytes: 16)
        _ = TitlePath.isSafe(text, for: .served)
    }
    return 0
}

#if FUZZING
    @_cdecl("stowage_fuzz_documents_main")
    func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
        FuzzDriver.run(argc, argv, fuzzDocuments)
    }
#else
    @main
    struct Replay {
        static func main() { FuzzReplay.run(fuzzDocuments) }
    }
#endif
