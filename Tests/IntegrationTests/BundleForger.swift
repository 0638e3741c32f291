import Crypto
import Foundation
import StowageProtocol

/// What an attacker does to a bundle: copies the folder, edits `bundle.json` as plain JSON, and signs it with a key
/// of its own (a box nobody was told to trust, taken in with `--trust-any`). The box key it writes into the manifest
/// is a real one (its id derived from its signing key), so only the trust decision stands between it and an import.
struct BundleForger {
    let signing = Curve25519.Signing.PrivateKey()
    let agreement = Curve25519.KeyAgreement.PrivateKey()

    var box: [String: String] {
        let id = Hex.encode(SHA256.hash(data: signing.publicKey.rawRepresentation).prefix(8))
        return [
            "id": id, "signingKey": signing.publicKey.rawRepresentation.base64EncodedString(),
            "agreementKey": agreement.publicKey.rawRepresentation.base64EncodedString(),
        ]
    }

    /// A copy of `bundle` named `name` beside it, its manifest changed by `edit`, signed by this forger.
    func forge(_ bundle: URL, _ name: String, _ edit: (inout [String: Any]) throws -> Void) throws -> URL {
        let copy = bundle.deletingLastPathComponent().appendingPathComponent(name)
        try FileManager.default.copyItem(at: bundle, to: copy)
        let file = copy.appendingPathComponent("bundle.json")
        guard var manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any] else {
            throw ForgeError("bundle.json of \(bundle.path) is not an object")
        }
        try edit(&manifest)
        manifest["box"] = box
        try sign(try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]), in: copy)
        return copy
    }

    /// Writes `bytes` as the folder's `bundle.json` and its signature by this forger.
    func sign(_ bytes: Data, in folder: URL) throws {
        try bytes.write(to: folder.appendingPathComponent("bundle.json"))
        let signature = try signing.signature(for: bytes).base64EncodedString()
        try Data((signature + "\n").utf8).write(to: folder.appendingPathComponent("bundle.sig"))
    }

    struct ForgeError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

extension Dictionary where Key == String, Value == Any {
    /// `self[a][b]…` set to `value`, through nested objects and arrays (an Int part indexes an array).
    mutating func set(_ path: [Any], to value: Any?) throws {
        func put(_ node: Any, _ rest: ArraySlice<Any>) throws -> Any? {
            guard let head = rest.first else { return value }
            if let key = head as? String, var object = node as? [String: Any] {
                object[key] = try put(object[key] as Any, rest.dropFirst())
                return object
            }
            if let index = head as? Int, var array = node as? [Any], array.indices.contains(index) {
                array[index] = try put(array[index], rest.dropFirst()) as Any
                return array
            }
            throw BundleForger.ForgeError("no \(head) in the manifest at \(path)")
        }
        guard let object = try put(self, path[...]) as? [String: Any] else {
            throw BundleForger.ForgeError("\(path) did not leave an object")
        }
        self = object
    }

    /// `self[a][b]…`.
    func get(_ path: [Any]) -> Any? {
        var node: Any? = self
        for part in path {
            if let key = part as? String { node = (node as? [String: Any])?[key] }
            if let index = part as? Int {
                node = (node as? [Any]).flatMap { $0.indices.contains(index) ? $0[index] : nil }
            }
        }
        return node
    }
}
