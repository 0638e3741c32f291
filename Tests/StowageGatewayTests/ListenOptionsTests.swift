import Testing

@testable import StowageGateway

/// Where the gateway listens: plain HTTP off loopback is warned about.
@Suite("Listen options")
struct ListenOptionsTests {
    @Test func plainHTTPOffLoopbackIsWarnedAbout() {
        for host in ["0.0.0.0", "192.168.1.10", "::", "box.lan"] {
            let warning = ListenOptions(host: host, port: 8480).plaintextWarning
            #expect(warning?.contains("--tls-cert") == true, "\(host)")
        }
        for host in ["127.0.0.1", "127.0.0.2", "::1", "localhost"] {
            #expect(ListenOptions(host: host, port: 8480).plaintextWarning == nil, "\(host)")
        }
        let tls = ListenOptions(host: "0.0.0.0", port: 8443, tlsCertificate: "c.pem", tlsKey: "k.pem")
        #expect(tls.plaintextWarning == nil)
    }
}
