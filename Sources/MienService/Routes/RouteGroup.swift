import HTTPTypes
import Hummingbird
import HummingbirdWebSocket

/// One resource's routes, as Hummingbird's examples group controllers: the paths it answers and the methods
/// each takes (declared once, for the router and for `MethodCheck`'s 405), and their handlers.
protocol RouteGroup: Sendable {
    /// Path patterns (`{name}` stands for one segment) and the methods each takes.
    var paths: [(String, [HTTPRequest.Method])] { get }
    func register(on router: Router<MienRequestContext>)
}
