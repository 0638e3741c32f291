import Foundation
import StowageProtocol

/// `estimate` and `variants` tell, before anything is downloaded, what `submit` will decide about a protected
/// title: the same ``TitleProtection/given(keySource:)`` decision and the same refusal text, on stderr so their
/// output (and `--json`) stays as it was.
enum ProtectionNote {
    /// Warns when `submit` without a key source (`--license-url`, `--key`) would refuse the title as device-only.
    static func warn(_ protection: TitleProtection?, url: String) {
        guard let decided = protection?.given(keySource: false), decided.deviceOnly else { return }
        FileHandle.standardError.write(Data("note: submit refuses it: \(decided.deviceOnlyRefusal(url))\n".utf8))
    }
}
