import HummingbirdCore
import Logging
import NIOCore

/// A server child channel that closes connections which have not sent a whole first request head: after
/// `timeout` from their opening, or at once when the server shuts down.
///
/// Why: Hummingbird's HTTP/1 channel with the WebSocket upgrade adds its idle timeout and its shutdown
/// (quiescing) handling only once the first request head has been read. A connection opened and never used,
/// as browsers open ahead of time ("preconnect"), or one stopped in the middle of its first head, was
/// therefore closed by neither: each held a socket indefinitely, and with the live page open `mien serve`
/// waited for its shutdown deadline (6 s after SIGTERM). This wrapper puts a small handler in front of the
/// inner channel's own; from the end of the first head on, the inner channel's handling applies unchanged.
struct FirstRequestGuard<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    /// The channel whose pipeline follows the guard's handler.
    let inner: Inner
    /// How long a new connection has to send its first request head.
    let timeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(Handler(timeout: timeout), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }

    /// Passes every byte and event through; until the first request head has ended, closes the connection on
    /// its timeout or on the server's quiescing event.
    final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer

        private let timeout: TimeAmount
        private var head = RequestHeadEnd()
        private var timer: Scheduled<Void>?

        init(timeout: TimeAmount) {
            self.timeout = timeout
        }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { startTimer(context) }
        }

        func channelActive(context: ChannelHandlerContext) {
            startTimer(context)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if !head.isComplete {
                head.scan(unwrapInboundIn(data).readableBytesView)
                if head.isComplete { cancelTimer() }
            }
            context.fireChannelRead(data)
        }

        func channelInactive(context: ChannelHandlerContext) {
            cancelTimer()
            context.fireChannelInactive()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            cancelTimer()
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is ChannelShouldQuiesceEvent, !head.isComplete {
                end(context)
                return
            }
            context.fireUserInboundEventTriggered(event)
        }

        private func startTimer(_ context: ChannelHandlerContext) {
            guard timer == nil, !head.isComplete else { return }
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
                timer = nil
                if !head.isComplete { end(context) }
            }
        }

        private func cancelTimer() {
            timer?.cancel()
            timer = nil
        }

        /// Tells the handlers behind that no request will come, as a client's half-close does, then closes.
        ///
        /// Why not just close: the HTTP upgrade handler then fails with "inappropriate operation", which
        /// Hummingbird logs as an error for every such connection; an input close ends it as a client that
        /// went away, which is not an error.
        private func end(_ context: ChannelHandlerContext) {
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            context.close(promise: nil)
        }
    }
}
