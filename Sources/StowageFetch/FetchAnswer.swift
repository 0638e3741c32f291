import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// An HTTP answer a fetch reads, from the general client or from an ``OriginConnection``.
struct FetchAnswer {
    let status: HTTPResponseStatus
    let headers: HTTPHeaders
    private var body: Body

    fileprivate enum Body {
        case client(HTTPClientResponse.Body.AsyncIterator)
        case origin(OriginConnection)
    }

    fileprivate init(status: HTTPResponseStatus, headers: HTTPHeaders, body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The next piece of the body, nil at its end.
    mutating func next() async throws -> ByteBuffer? {
        switch body {
        case .client(var iterator):
            let buffer = try await iterator.next()
            body = .client(iterator)
            return buffer
        case .origin(let connection):
            return try await connection.nextBody()
        }
    }
}

extension HTTPFetcher {
    /// The answer to `request`: over `connection` when it can carry it (a GET under its origin, the connection
    /// ready), otherwise, or when the connection fails before the answer's head (an idle connection the origin
    /// closed) or the answer is a redirect, through the general client, which follows redirects by their rules
    /// (``perform(_:timeout:)``) and names what is wrong when the origin cannot be reached.
    func answer(_ request: HTTPClientRequest, via connection: OriginConnection?, timeout: TimeAmount)
        async throws -> FetchAnswer
    {
        if let connection, connection.reusable, request.method == .GET,
            let target = connection.origin.target(of: request.url)
        {
            do {
                let head = try await connection.get(target, headers: request.headers)
                if !Self.redirects.contains(head.status.code) {
                    connectionAnswers.add(1, ordering: .relaxed)
                    return FetchAnswer(status: head.status, headers: head.headers, body: .origin(connection))
                }
                await connection.discardBody()
            } catch {
                try Task.checkCancellation()
            }
        }
        let (response, _) = try await perform(request, timeout: timeout)
        return FetchAnswer(
            status: response.status, headers: response.headers, body: .client(response.body.makeAsyncIterator()))
    }

    static let redirects: Set<UInt> = [301, 302, 303, 307, 308]
}
