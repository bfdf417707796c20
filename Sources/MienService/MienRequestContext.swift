import Foundation
import HTTPTypes
public import Hummingbird
public import HummingbirdWebSocket
public import NIOCore

/// The request context of every route: Hummingbird's, with the WebSocket upgrade, and the connection's peer
/// address (consents are limited per client address).
public struct MienRequestContext: RequestContext, WebSocketRequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let webSocket: WebSocketHandlerReference<Self>
    /// The connection's peer (a reverse proxy's, when one is in front).
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        remoteAddress = source.channel.remoteAddress
    }

    /// The client's address: the peer's, or, behind a trusted proxy, the one its `X-Forwarded-For` names.
    ///
    /// When the peer is one of the `trusted` reverse proxies (`--trust-proxy`), the rightmost address of
    /// `X-Forwarded-For` that is not a trusted proxy. With none trusted (the default) the header is ignored: a
    /// client cannot choose its own address.
    func clientAddress(_ request: Request, trusting trusted: [AddressRange]) -> String {
        let peer = remoteAddress?.ipAddress ?? "unknown"
        guard !trusted.isEmpty, let name = HTTPField.Name("X-Forwarded-For") else { return peer }
        let forwarded = request.headers[values: name].joined(separator: ",")
        return AddressRange.client(peer: peer, forwardedFor: forwarded.isEmpty ? nil : forwarded, trusted: trusted)
    }
}
