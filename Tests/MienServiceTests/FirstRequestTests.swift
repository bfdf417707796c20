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
        let service = try MienService(options: ServiceOptions(port: 0, idleSeconds: 1), models: ModelStore())
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
}
