import Foundation
import Mien

/// A PostgreSQL URL as `mien serve --studies` and `mien study --store` take it, libpq's form:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require][&host=/SOCKET/FOLDER]`.
///
/// The password is never printed: `description` (logs, errors, `/studies`) shows `***` in its place. A URL with no
/// password takes `PGPASSWORD` from the environment, as libpq does.
struct DatabaseURL: Sendable, CustomStringConvertible {
    enum TLSMode: String, Sendable {
        /// Plain TCP (loopback, a sidecar proxy, a private network).
        case disable
        /// TLS when the server offers it.
        case prefer
        /// TLS or no connection; the server's certificate is checked against the system's roots.
        case require
    }

    var user: String
    var password: String?
    var host: String
    var port: Int
    var database: String
    var tls: TLSMode
    /// A Unix-socket folder (libpq's `host=` query parameter): the socket is `FOLDER/.s.PGSQL.PORT`.
    var socketFolder: String?

    /// Whether `text` names a database rather than a folder.
    static func isDatabase(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// - Throws: `MienError` `.invalidArgument` naming what is wrong (the URL shown without its password).
    init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let shown = Self.redacted(text)
        func refuse(_ why: String) -> MienError {
            MienError(
                .invalidArgument,
                "not a PostgreSQL URL: \(why) (postgres://USER:PASSWORD@HOST:PORT/DATABASE)", input: shown)
        }
        guard Self.isDatabase(text), let parts = URLComponents(string: text) else {
            throw refuse("it starts with postgres:// and is a URL")
        }
        guard let user = parts.user, !user.isEmpty else { throw refuse("it names no user") }
        let database = String(parts.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw refuse("it names no database after the host") }
        var tls = TLSMode.prefer
        var socketFolder: String?
        for item in parts.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw refuse("sslmode is disable, prefer or require")
                }
                tls = mode
            case "host":
                guard let folder = item.value, folder.hasPrefix("/") else {
                    throw refuse("host= names a socket folder (an absolute path)")
                }
                socketFolder = folder
            default:
                throw refuse("unknown parameter \(item.name) (known: sslmode, host)")
            }
        }
        let host = parts.host ?? ""
        guard !host.isEmpty || socketFolder != nil else { throw refuse("it names no host") }
        guard parts.port.map({ (1...65535).contains($0) }) ?? true else { throw refuse("the port is 1-65535") }
        self.user = user.removingPercentEncoding ?? user
        password = (parts.password?.removingPercentEncoding ?? parts.password) ?? environment["PGPASSWORD"]
        self.host = host
        port = parts.port ?? 5432
        self.database = database.removingPercentEncoding ?? database
        self.tls = tls
        self.socketFolder = socketFolder
    }

    /// The URL with `***` for its password.
    var description: String {
        var text = "postgres://\(user)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
        var query: [String] = []
        if tls != .prefer { query.append("sslmode=\(tls.rawValue)") }
        if let socketFolder { query.append("host=\(socketFolder)") }
        if !query.isEmpty { text += "?" + query.joined(separator: "&") }
        return text
    }

    /// `text` with whatever stands between `user:` and `@` replaced by `***` (for a URL that does not parse).
    static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@") else {
            return text
        }
        let credentials = text[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }
}
