import Foundation
import Logging
import Mien
import NIOSSL
import PostgresNIO

/// How a database URL becomes PostgresNIO's configuration, and a connection's failure the words a person starting
/// the server can act on.
extension StudyDatabase {
    /// The TLS client settings `sslmode` and `sslrootcert` ask for, as libpq reads them.
    static func tlsConfiguration(_ url: DatabaseURL) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let file = url.rootCertificates { configuration.trustRoots = .file(file) }
        switch url.tls {
        case .disable, .prefer: configuration.certificateVerification = .none
        case .require:
            configuration.certificateVerification = url.rootCertificates == nil ? .none : .noHostnameVerification
        case .verifyCA: configuration.certificateVerification = .noHostnameVerification
        case .verifyFull: configuration.certificateVerification = .fullVerification
        }
        return configuration
    }

    private static func tls(_ url: DatabaseURL) throws -> PostgresConnection.Configuration.TLS {
        switch url.tls {
        case .disable: return .disable
        case .prefer: return .prefer(try NIOSSLContext(configuration: tlsConfiguration(url)))
        case .require, .verifyCA, .verifyFull: return .require(try NIOSSLContext(configuration: tlsConfiguration(url)))
        }
    }

    static func connectionConfiguration(_ url: DatabaseURL) throws -> PostgresConnection.Configuration {
        var configuration =
            if let folder = url.socketFolder {
                PostgresConnection.Configuration(
                    unixSocketPath: "\(folder)/.s.PGSQL.\(url.port)", username: url.user, password: url.password,
                    database: url.database)
            } else {
                PostgresConnection.Configuration(
                    host: url.host, port: url.port, username: url.user, password: url.password,
                    database: url.database, tls: try tls(url))
            }
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    static func clientConfiguration(_ url: DatabaseURL) throws -> PostgresClient.Configuration {
        if let folder = url.socketFolder {
            return PostgresClient.Configuration(
                unixSocketPath: "\(folder)/.s.PGSQL.\(url.port)", username: url.user, password: url.password,
                database: url.database)
        }
        let tls: PostgresClient.Configuration.TLS =
            switch url.tls {
            case .disable: .disable
            case .prefer: .prefer(tlsConfiguration(url))
            case .require, .verifyCA, .verifyFull: .require(tlsConfiguration(url))
            }
        return PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: tls)
    }

    /// A connection's failure as the person starting the server can act on it.
    static func explain(_ error: any Error, url: DatabaseURL) -> MienError {
        if let error = error as? MienError { return error }
        // A connection the pool could not make, as `transaction` wraps it: the library's error says why.
        let error = (error as? StudyStoreFailure)?.underlying ?? error
        // Issue 96: a missing file read "cannot reach the database (noSuchFilesystemObject)".
        if let roots = url.rootCertificates, !FileManager.default.isReadableFile(atPath: roots) {
            return MienError(
                .notFound,
                "sslrootcert=\(roots) cannot be read (no such file, or not readable): it names the PEM file of certificate authorities the database's certificate is checked against",
                input: "\(url)")
        }
        // Issue 96: a certificate for another name read "no PostgreSQL server answers there … Couldn't find <none>".
        let underlying = (error as? PSQLError)?.underlying ?? error
        if underlying is NIOSSLExtraError {
            return MienError(
                .invalidArgument,
                "the database's TLS certificate does not name \(url.host) (sslmode=\(url.tls.rawValue) checks the name): connect by a name the certificate holds, or use sslmode=verify-ca",
                input: "\(url)")
        }
        guard let psql = error as? PSQLError else {
            return MienError(.deviceUnavailable, "cannot reach the database", input: "\(url)", cause: "\(error)")
        }
        let state = psql.serverInfo?[.sqlState]
        let cause = describe(psql)
        switch (psql.code, state) {
        case (.server, "28P01"), (.authMechanismRequiresPassword, _), (.saslError, _):
            return MienError(.invalidArgument, "the database refused user \(url.user)'s password", input: "\(url)")
        case (.server, "28000"):
            return MienError(
                .invalidArgument, "the database does not let user \(url.user) in (pg_hba.conf)", input: "\(url)",
                cause: cause)
        case (.server, "3D000"):
            return MienError(.invalidArgument, "the server has no database \(url.database)", input: "\(url)")
        case (.sslUnsupported, _):
            return MienError(
                .invalidArgument, "the database does not offer TLS, which sslmode=\(url.tls.rawValue) asks for",
                input: "\(url)")
        case _ where psql.underlying is NIOSSLError || psql.underlying is BoringSSLError:
            // The TLS library's own words name files of the machine it was built on: the host and the mode only.
            return MienError(
                .invalidArgument,
                "the database at \(url.host)'s TLS certificate was not accepted (sslmode=\(url.tls.rawValue)\(url.rootCertificates.map { ", sslrootcert=\($0)" } ?? ", the system's certificate authorities"); a private CA is given with sslrootcert=/PATH/ca.pem)",
                input: "\(url)")
        case (.server, _):
            return MienError(.invalidArgument, "the database refused the connection", input: "\(url)", cause: cause)
        default:
            return MienError(
                .deviceUnavailable, "no PostgreSQL server answers there", input: "\(url)", cause: cause)
        }
    }

    /// PostgreSQL's own message (`PSQLError`'s description hides it on purpose, for logs that may be public).
    static func describe(_ error: any Error) -> String {
        guard let psql = error as? PSQLError else { return "\(error)" }
        if let message = psql.serverInfo?[.message] {
            return "\(message) (SQLSTATE \(psql.serverInfo?[.sqlState] ?? "?"))"
        }
        if let underlying = psql.underlying { return "\(psql.code): \(underlying)" }
        return "\(psql.code)"
    }
}
