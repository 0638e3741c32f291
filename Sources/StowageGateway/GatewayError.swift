import Foundation
import Hummingbird
import StowageProtocol

/// A failure the gateway answers with, as JSON: `{"error": {"code", "message"}}`, with the codes of
/// `ErrorCode` (which includes `unauthorized` and `forbidden`). An `HTTPResponseError`, so a handler or
/// middleware anywhere in the router just throws it.
public struct GatewayError: Error, Sendable, Equatable, CustomStringConvertible, HTTPResponseError {
    public var status: HTTPResponse.Status
    public var code: ErrorCode
    public var message: String
    /// Extra headers of the answer (`Retry-After`).
    public var headers: HTTPFields = [:]

    /// An error with an explicit HTTP status.
    public init(_ status: HTTPResponse.Status, _ code: ErrorCode, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The scheduler's error, with the HTTP status its code maps to.
    public init(_ error: TitleError) {
        self.init(Self.status(for: error.code), error.code, error.message)
    }

    public var description: String { "\(status.code) [\(code.rawValue)] \(message)" }

    /// No or bad credential.
    public static func unauthorized(_ message: String = "a credential is required") -> GatewayError {
        GatewayError(.unauthorized, .unauthorized, message)
    }

    /// No such title, id, file or route.
    public static func notFound(_ message: String = "not found") -> GatewayError {
        GatewayError(.notFound, .notFound, message)
    }

    /// A known caller that may not do this: a state-changing request without its CSRF token or from another
    /// origin.
    public static func forbidden(_ message: String) -> GatewayError {
        GatewayError(.forbidden, .forbidden, message)
    }

    /// Too many failed credentials from one address: 429 with `Retry-After`.
    public static func throttled(retryAfter seconds: Int) -> GatewayError {
        var error = GatewayError(
            .tooManyRequests, .refused,
            "too many failed credentials from this address: try again in \(seconds) s")
        error.headers[.retryAfter] = "\(seconds)"
        return error
    }

    /// The HTTP status for an error code.
    public static func status(for code: ErrorCode) -> HTTPResponse.Status {
        switch code {
        case .unauthorized: .unauthorized
        case .notFound, .sourceGone: .notFound
        case .license, .forbidden: .forbidden
        case .refused, .playlist: .badRequest
        case .network, .httpStatus: .badGateway
        case .diskFull, .quota: .init(code: 507)
        default: .internalServerError
        }
    }

    /// The error code for an HTTP status the router answers with itself.
    public static func code(for status: HTTPResponse.Status) -> ErrorCode {
        switch status.code {
        case 401: .unauthorized
        case 403: .forbidden
        case 404: .notFound
        case 500...: .internal
        default: .refused
        }
    }

    /// The JSON response.
    public var response: Response {
        struct Body: Encodable {
            struct Inner: Encodable {
                let code: String
                let message: String
            }
            let error: Inner
        }
        let data = (try? JSONEncoder().encode(Body(error: .init(code: code.rawValue, message: message)))) ?? Data()
        var headers = self.headers
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The JSON response (`HTTPResponseError`).
    public func response(from request: Request, context: some RequestContext) throws -> Response { response }
}
