import ArgumentParser
import Foundation
import Mien

/// The option types `mien study init` parses.
extension CollectionSettings.Order: ExpressibleByArgument {}
extension PanelConventions: ExpressibleByArgument {}
