/// A frame's size in pixels, for the metrics computed from where a face is in it.
public struct FrameSize: Sendable, Equatable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}
