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

    /// The client's address: the peer's, or, when the peer is this machine (a reverse proxy on the same host),
    /// the last address of `X-Forwarded-For`, the one that proxy appended.
    func clientAddress(_ request: Request) -> String {
        let peer = remoteAddress?.ipAddress ?? "unknown"
        guard ServiceOptions.isLoopback(peer), let name = HTTPField.Name("X-Forwarded-For"),
            let forwarded = request.headers[name]?.split(separator: ",").last
        else { return peer }
        return forwarded.trimmingCharacters(in: .whitespaces)
    }
}
