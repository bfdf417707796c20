import Mien

/// The command line's view of one input as it runs: frames done on the progress board.
final class ProgressWriter: ResultWriter {
    private let board: ProgressBoard
    private let input: String
    private var token: Int?

    init(board: ProgressBoard, input: String) {
        self.board = board
        self.input = input
    }

    func begin(_ info: SourceInfo) throws { token = board.begin(input, expectedFrames: info.frameCount) }

    func write(_ result: DetectorResult, frame: Frame?) throws {
        if token == nil { token = board.begin(input, expectedFrames: nil) }
        if let token { board.advance(token) }
    }

    func finish(_ end: InputEnd) throws {
        if let token { board.finish(token) }
    }

    func fail(_ error: MienError) {
        if let token { board.drop(token) }
    }
}
