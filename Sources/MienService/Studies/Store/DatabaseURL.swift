import Foundation
import Mien

/// A PostgreSQL URL as `mien serve --studies` and `mien study --store` take it, libpq's form:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=MODE][&sslrootcert=/CA.pem][&host=/SOCKET/FOLDER]`,
/// MODE one of libpq's `disable`, `prefer` (the default), `require`, `verify-ca`, `verify-full`.
///
/// The password is never printed: `description` (logs, errors, `/studies`) shows `***` in its place. A URL with no
/// password takes `PGPASSWORD` from the environment, or else the first matching line of the file `PGPASSFILE` names
/// (libpq's `HOST:PORT:DATABASE:USER:PASSWORD`, `*` matching anything, `\:` and `\\` escaped), as libpq does.
struct DatabaseURL: Sendable, CustomStringConvertible {
    /// libpq's `sslmode`, as libpq defines each.
    enum TLSMode: String, Sendable, CaseIterable {
        /// Plain TCP (loopback, a sidecar proxy, a private network).
        case disable
        /// TLS when the server offers it, plain TCP when it does not; the certificate is not checked.
        case prefer
        /// TLS or no connection; the certificate is not checked unless `sslrootcert` is given (then as
        /// `verifyCA`), as libpq does.
        case require
        /// TLS, the certificate's chain checked against `sslrootcert` (or the system's roots), not its host name.
        case verifyCA = "verify-ca"
        /// TLS, the chain checked and the certificate naming the host.
        case verifyFull = "verify-full"
    }

    var user: String
    var password: String?
    var host: String
    var port: Int
    var database: String
    var tls: TLSMode
    /// A Unix-socket folder (libpq's `host=` query parameter): the socket is `FOLDER/.s.PGSQL.PORT`.
    var socketFolder: String?
    /// A PEM file of the certificate authorities the server's certificate is checked against (libpq's
    /// `sslrootcert`); nil: the system's roots.
    var rootCertificates: String?

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
        var rootCertificates: String?
        for item in parts.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw refuse("sslmode is \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                tls = mode
            case "sslrootcert":
                guard let file = item.value, file.hasPrefix("/") else {
                    throw refuse("sslrootcert= names a PEM file of certificate authorities (an absolute path)")
                }
                rootCertificates = file
            case "host":
                guard let folder = item.value, folder.hasPrefix("/") else {
                    throw refuse("host= names a socket folder (an absolute path)")
                }
                socketFolder = folder
            default:
                throw refuse("unknown parameter \(item.name) (known: sslmode, sslrootcert, host)")
            }
        }
        let host = parts.host ?? ""
        guard !host.isEmpty || socketFolder != nil else { throw refuse("it names no host") }
        guard parts.port.map({ (1...65535).contains($0) }) ?? true else { throw refuse("the port is 1-65535") }
        self.user = user.removingPercentEncoding ?? user
        self.host = host
        port = parts.port ?? 5432
        self.database = database.removingPercentEncoding ?? database
        let (name, number, base, login) = (socketFolder ?? host, parts.port ?? 5432, self.database, self.user)
        password =
            (parts.password?.removingPercentEncoding ?? parts.password) ?? environment["PGPASSWORD"]
            ?? environment["PGPASSFILE"].flatMap {
                Self.passwordFile($0, host: name, port: number, database: base, user: login)
            }
        self.tls = tls
        self.socketFolder = socketFolder
        self.rootCertificates = rootCertificates
    }

    /// The password of the first line of libpq's password file at `path` that matches (nil: none, or no file).
    static func passwordFile(_ path: String, host: String, port: Int, database: String, user: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            // Fields split at unescaped colons, `\:` and `\\` read as `:` and `\`.
            var fields: [String] = [""]
            var escaped = false
            for character in line.trimmingCharacters(in: .init(charactersIn: "\r")) {
                if escaped {
                    fields[fields.count - 1].append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == ":" && fields.count < 5 {
                    fields.append("")
                } else {
                    fields[fields.count - 1].append(character)
                }
            }
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// The URL with `***` for its password.
    var description: String {
        var text = "postgres://\(user)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
        var query: [String] = []
        if tls != .prefer { query.append("sslmode=\(tls.rawValue)") }
        if let rootCertificates { query.append("sslrootcert=\(rootCertificates)") }
        if let socketFolder { query.append("host=\(socketFolder)") }
        if !query.isEmpty { text += "?" + query.joined(separator: "&") }
        return text
    }

    /// `text` with whatever stands between `user:` and `@` replaced by `***`, for any text that may be a URL with
    /// a password, whether it parses or not (`postgres:/…`, `postgress://…`, `mien:PW@host/db`): the credentials are
    /// what stands before the last `@`, after `://` when there is one, else after the last `/` before it.
    static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let head = text[..<at]
        let start =
            head.range(of: "://")?.upperBound ?? head.lastIndex(of: "/").map { head.index(after: $0) }
            ?? head.startIndex
        guard let colon = head[start...].firstIndex(of: ":") else { return text }
        return String(text[...colon]) + "***" + String(text[at...])
    }

    /// Whether `text` carries a password before an `@` (what `redacted` hides).
    static func hasPassword(_ text: String) -> Bool { redacted(text) != text }
}
