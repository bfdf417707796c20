import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Mien
import ServiceLifecycle
import Testing

@testable import MienService

/// Connections that have not sent a whole first request head, as browsers open some ahead of time.
///
/// They are closed after the idle limit, and at once when the service shuts down; they used to hold a socket
/// forever, and kept `mien serve` running until its shutdown deadline.
@Suite("mien serve: connections before their first request", .timeLimit(.minutes(10)))
struct FirstRequestTests {
    /// Whether `GET /healthz` on a new connection is answered with 200.
    static func answersHealthz(port: Int) async throws -> Bool {
        let socket = try LoopbackSocket(port: port, receiveTimeout: 20)
        try socket.send(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        return String(decoding: await socket.receive() ?? [], as: UTF8.self).hasPrefix("HTTP/1.1 200")
    }
    static let partialHead = Array("GET /healthz HTTP/1.1\r\nHo".utf8)

    @Test func silentAndPartialConnections_areClosedAfterTheIdleLimit_andTheServiceCarriesOn() async throws {
        let service = try MienService(options: ServiceOptions(port: 0, idleSeconds: 2), models: ModelStore())
        try await service.application().test(.live) { client in
            let port = try #require(client.port)
            let silent = try LoopbackSocket(port: port, receiveTimeout: 20)
            let partial = try LoopbackSocket(port: port, receiveTimeout: 20)
            try partial.send(Self.partialHead)
            // `[]` is the server closing the connection; `nil` would be 20 s without the close.
            #expect(await silent.receive() == [], "a connection that never spoke was not closed after 1 s")
            #expect(await partial.receive() == [], "a connection stopped inside its head was not closed after 1 s")
            // The test client's own connection was silent for as long, so the check uses a new one.
            #expect(try await Self.answersHealthz(port: port))
        }
    }

    @Test func silentAndPartialConnections_areClosedAtShutdown_beforeTheirIdleLimit() async throws {
        let service = try MienService(options: ServiceOptions(port: 0, idleSeconds: 600), models: ModelStore())
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let group = ServiceGroup(
            configuration: .init(
                services: [service.application(onListening: { listening.yield($0) })],
                logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next(), "the service did not start")
            do {
                let silent = try LoopbackSocket(port: port, receiveTimeout: 20)
                let partial = try LoopbackSocket(port: port, receiveTimeout: 20)
                try partial.send(Self.partialHead)
                // An answered request shows the service is serving, so the other connections are accepted.
                #expect(try await Self.answersHealthz(port: port))
                await group.triggerGracefulShutdown()
                #expect(await silent.receive() == [], "shutting down left a connection that never spoke open")
                #expect(await partial.receive() == [], "shutting down left a connection inside its head open")
            }
            // Every socket is closed from this side now, so a failing run cannot keep the group waiting.
            try await tasks.waitForAll()
        }
    }

    @Test func headEnd_isFoundAcrossReads_withEitherLineEnding() {
        func complete(_ parts: [String]) -> Bool {
            var head = RequestHeadEnd()
            for part in parts { head.scan(Array(part.utf8)) }
            return head.isComplete
        }
        #expect(complete(["GET / HTTP/1.1\r\nHost: a\r\n\r\n"]))
        #expect(complete(["GET / HTTP/1.1\r\nHost: a\r", "\n", "\r", "\n"]))
        #expect(complete(["GET / HTTP/1.1\nHost: a\n", "\n"]))
        #expect(complete(["GET / HTTP/1.1\r\nHost: a\r\n\r\nbody", "more"]))
        #expect(!complete(["GET / HTTP/1.1\r\nHost: a\r\n"]))
        #expect(!complete(["GET / HTTP/1.1\r\nHost: a\r\n\r"]))
        #expect(!complete(["GET / HTTP/1.1\r\nHost: a\r\r\n", "Accept: */*\r\n"]))
        #expect(!complete([]))
    }

    @Test func aSlowBody_isClosedAtItsDeadline_andAStreamOfRequestsIsNot() async throws {
        let service = try MienService(options: ServiceOptions(port: 0, idleSeconds: 2), models: ModelStore())
        try await service.application().test(.live) { client in
            let port = try #require(client.port)
            // A consent-sized body, one byte every 0.2 s: never silent for the idle limit, done in 20 s.
            let slow = try LoopbackSocket(port: port, receiveTimeout: 20)
            try slow.send(Array("POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n".utf8))
            let chunked = try LoopbackSocket(port: port, receiveTimeout: 20)
            try chunked.send(Array("POST /nowhere HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
            let opened = ContinuousClock.now
            var closed = (slow: false, chunked: false)
            for _ in 0..<40 where !(closed.slow && closed.chunked) {
                try await Task.sleep(for: .milliseconds(200))
                if !closed.slow { closed.slow = (try? slow.send([UInt8(ascii: "x")])) == nil }
                if !closed.chunked { closed.chunked = (try? chunked.send(Array("1\r\nx\r\n".utf8))) == nil }
            }
            // Closed at the 2-s deadline (and its allowance for 100 bytes at 8 KB/s), not after 6 s.
            #expect(closed.slow && closed.chunked, "slow bodies were still read after \(ContinuousClock.now - opened)")
            #expect(ContinuousClock.now - opened < .seconds(6))
            // Whole requests one after another on one connection, 0.5 s apart for 4 s: each is on time.
            let steady = try LoopbackSocket(port: port, receiveTimeout: 5)
            for _ in 0..<8 {
                try steady.send(Array("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
                let answer = String(decoding: await steady.receive() ?? [], as: UTF8.self)
                #expect(answer.hasPrefix("HTTP/1.1 200"))
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    @Test func connectionsPastTheLimit_areAnswered503_andOneClosedMakesRoom() async throws {
        // The test client holds one connection of the four.
        let options = try ServiceOptions(port: 0, maximumConnections: 4)
        #expect(options.maximumConnectionsPerAddress == 4, "the per-address limit never exceeds the whole")
        let service = try MienService(options: options, models: ModelStore())
        try await service.application().test(.live) { client in
            let port = try #require(client.port)
            var held = try (0..<3).map { _ in try LoopbackSocket(port: port, receiveTimeout: 5) }
            // The server counts a connection once it has accepted it: a request on each proves they are counted.
            for socket in held {
                try socket.send(Array("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
                #expect(String(decoding: await socket.receive() ?? [], as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            }
            let refused = try LoopbackSocket(port: port, receiveTimeout: 5)
            let answer = String(decoding: await refused.receive() ?? [], as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 503") && answer.contains("Retry-After: 5"), "\(answer)")
            #expect(answer.contains("connections it can hold (4)"))
            held.removeLast()
            // The server frees the place once it has seen the close: a moment, longer on a busy machine.
            var answered = false
            for _ in 0..<50 where !answered {
                try await Task.sleep(for: .milliseconds(200))
                answered = try await Self.answersHealthz(port: port)
            }
            #expect(answered, "one connection closed made no room in 10 s")
        }
    }

    @Test func theLimitCountsEachSource_anIPv6Slash64AsOne_andATrustedProxyOnlyInTheWhole() throws {
        let limit = ConnectionLimit(
            total: 10, perSource: 2, trusted: [try AddressRange("10.0.0.1")], logger: Logger(label: "test"))
        #expect(limit.open(peer: "2001:db8::1") == nil)
        #expect(limit.open(peer: "2001:db8::2") == nil)
        #expect(limit.open(peer: "2001:db8::3") == .perSource, "one /64 is one source")
        #expect(limit.open(peer: "2001:db8:0:1::1") == nil, "another /64 is another")
        #expect(limit.open(peer: "192.0.2.1") == nil)
        for _ in 0..<6 { #expect(limit.open(peer: "10.0.0.1") == nil, "a trusted proxy counts only in the whole") }
        #expect(limit.open(peer: "10.0.0.1") == .total)
        #expect(limit.openCount == 10)
        limit.close(peer: "2001:db8::1")
        #expect(limit.open(peer: "2001:db8::3") == nil, "a closed connection frees its source's place")
        #expect(limit.response(.total).hasPrefix("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\n"))
    }

    @Test func requestsEnd_whereTheirBodiesEnd_acrossReads() {
        func ends(_ parts: [String]) -> (ended: Int, inRequest: Bool) {
            var framing = RequestFraming()
            let ended = parts.reduce(0) { $0 + framing.scan(Array($1.utf8)) }
            return (ended, framing.inRequest)
        }
        #expect(ends(["GET / HTTP/1.1\r\nHost: a\r\n\r\n"]) == (1, false))
        #expect(ends(["POST / HTTP/1.1\r\ncontent-length: 5\r\n\r\nabc"]) == (0, true))
        #expect(ends(["POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nabc", "de"]) == (1, false))
        #expect(ends(["POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET / HTTP/1.1\r\n\r\nGET"]) == (2, true))
        let chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(ends([chunked, "5;ext=1\r\nhello\r\n", "A\r\n0123456789\r\n"]) == (0, true))
        #expect(ends([chunked, "5\r\nhello\r\n0\r\n\r\n"]) == (1, false))
        #expect(ends([chunked, "5\r\nhello\r\n0\r\nExpires: never\r\n", "\r\n"]) == (1, false))
        #expect(ends([chunked, "5\r\nhel"]) == (0, true))
        #expect(ends(["\r\n"]) == (0, false), "a line end between requests begins none")
    }
}
