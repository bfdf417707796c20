import HummingbirdCore
import Logging
import NIOCore

/// A server child channel that bounds connections before the HTTP stack sees them: their number
/// (`ConnectionLimit`, answered 503 at once past it), and the time each request takes to arrive, from its first byte
/// to its last (`RequestFraming`); a connection not done sending its first request head is closed at once when the
/// server shuts down.
///
/// Why: Hummingbird's idle timeout counts silence, so a connection sending a byte every 12 s is never idle (issue 94:
/// slow bodies to a 404, `/healthz`, consent, chunked, held past 120 s); and its HTTP/1 channel with the WebSocket
/// upgrade adds its idle timeout and its shutdown (quiescing) handling only once the first request head has been
/// read, so a connection opened and never used, as browsers open ahead of time ("preconnect"), was closed by
/// neither. Once the connection is upgraded to a WebSocket (the server writes `101`), its own limits apply and this
/// handler only passes bytes through.
struct RequestGuard<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    /// The channel whose pipeline follows the guard's handler.
    let inner: Inner
    /// How long a request has to arrive, at least: from the connection's opening for its first request, from the
    /// first byte for the next ones.
    let timeout: TimeAmount
    /// The connections held at once.
    let limit: ConnectionLimit

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let peer = channel.remoteAddress?.ipAddress
        let refusal = limit.open(peer: peer)
        do {
            if let refusal {
                try channel.pipeline.syncOperations.addHandler(
                    Refuser(response: limit.response(refusal)), position: .first)
            } else {
                channel.closeFuture.whenComplete { [limit] _ in limit.close(peer: peer) }
                try channel.pipeline.syncOperations.addHandler(Handler(timeout: timeout), position: .first)
            }
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }

    /// Answers 503 and closes, passing nothing on: the connection is over a limit.
    ///
    /// It closes its side after the answer and discards what the client still sends for up to `linger` before
    /// closing (nginx's lingering close): closing a socket with unread bytes resets the connection, and a client
    /// still sending its body lost the 503 it had not yet read (a broken pipe instead of `Retry-After`).
    final class Refuser: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        /// How long a refused connection is read and discarded after its answer.
        static var linger: TimeAmount { .seconds(2) }

        private let response: String
        private var answered = false

        init(response: String) {
            self.response = response
        }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { refuse(context) }
        }

        func channelActive(context: ChannelHandlerContext) {
            refuse(context)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

        private func refuse(_ context: ChannelHandlerContext) {
            guard !answered else { return }
            answered = true
            let buffer = context.channel.allocator.buffer(string: response)
            context.writeAndFlush(NIOAny(IOData.byteBuffer(buffer))).assumeIsolated().whenComplete { _ in
                context.close(mode: .output, promise: nil)
                context.eventLoop.assumeIsolated().scheduleTask(in: Self.linger) {
                    context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
                    context.close(promise: nil)
                }
            }
        }
    }

    /// Passes every byte and event through; closes a connection whose request takes longer than its deadline, and,
    /// until the first request head has ended, on the server's quiescing event.
    final class Handler: ChannelDuplexHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        typealias OutboundIn = IOData
        typealias OutboundOut = IOData

        /// The slowest upload allowed, bytes a second.
        ///
        /// A request of `n` bytes has `timeout + n / minimumRate` to arrive. 8 KB/s is a poor mobile uplink; a participant's recording chunk of 1 MB then has 3 minutes.
        static var minimumRate: Int64 { 8 << 10 }

        private let timeout: TimeAmount
        private var framing = RequestFraming()
        /// Whether the first request's head has ended (from then on Hummingbird handles quiescing).
        private var firstHeadDone = false
        private var firstHead = RequestHeadEnd()
        /// When the request arriving now began, and its bytes so far; nil between requests.
        private var request: (started: NIODeadline, bytes: Int)?
        private var upgraded = false
        private var timer: Scheduled<Void>?

        init(timeout: TimeAmount) {
            self.timeout = timeout
        }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { opened(context) }
        }

        func channelActive(context: ChannelHandlerContext) {
            opened(context)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if !upgraded {
                let bytes = unwrapInboundIn(data).readableBytesView
                if !firstHeadDone {
                    firstHead.scan(bytes)
                    firstHeadDone = firstHead.isComplete
                }
                let ended = framing.scan(bytes)
                if framing.inRequest {
                    // A request that began in this read after another ended counts from now.
                    let started = ended == 0 ? request?.started ?? .now() : .now()
                    request = (started, (ended == 0 ? request?.bytes ?? 0 : 0) + bytes.count)
                    schedule(context)
                } else {
                    request = nil
                    cancelTimer()
                }
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            // The server switching protocols: what follows are WebSocket frames, no HTTP request.
            if !upgraded, case .byteBuffer(let buffer) = unwrapOutboundIn(data),
                buffer.readableBytesView.starts(with: "HTTP/1.1 101 ".utf8)
            {
                upgraded = true
                request = nil
                cancelTimer()
            }
            context.write(data, promise: promise)
        }

        func channelInactive(context: ChannelHandlerContext) {
            cancelTimer()
            context.fireChannelInactive()
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            cancelTimer()
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is ChannelShouldQuiesceEvent, !firstHeadDone {
                end(context)
                return
            }
            context.fireUserInboundEventTriggered(event)
        }

        /// The first request's time counts from the connection's opening: a connection that never speaks is
        /// closed after `timeout`.
        private func opened(_ context: ChannelHandlerContext) {
            guard request == nil, !firstHeadDone, !framing.inRequest else { return }
            request = (.now(), 0)
            schedule(context)
        }

        private func deadline() -> NIODeadline? {
            guard let request else { return nil }
            return request.started + timeout
                + .milliseconds(Int64(truncatingIfNeeded: request.bytes) * 1000 / Self.minimumRate)
        }

        private func schedule(_ context: ChannelHandlerContext) {
            guard timer == nil, let deadline = deadline() else { return }
            timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
                timer = nil
                guard !upgraded, let due = self.deadline() else { return }
                // Bytes that came since the timer was set moved the deadline on.
                if due <= .now() { end(context) } else { schedule(context) }
            }
        }

        private func cancelTimer() {
            timer?.cancel()
            timer = nil
        }

        /// Tells the handlers behind that no more of the request will come, as a client's half-close does, then
        /// closes.
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
