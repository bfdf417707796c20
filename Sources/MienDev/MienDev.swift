import ArgumentParser
import Mien

/// `MienDev`: the developer's side of Mien: benchmarks (`make bench`), accuracy evaluation on
/// `../shared/eval` (`make eval`) and synthetic clips for the demo.
///
/// Each command ends by printing a
/// machine-readable JSON summary as its last line.
@main
struct MienDev: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "MienDev",
        abstract: "Mien benchmarks, evaluation and sample clips.",
        subcommands: [
            MakeClip.self, Bench.self, Eval.self, Features.self, EmotionFeatures.self, GlassesFeatures.self, Soak.self,
            PeerBench.self, StudyRecordingsCommand.self, NullStudies.self, StatisticsReference.self,
            PredictionNull.self,
            PeerClips.self, BenchOutputs.self, GazeFeatures.self, BenchServe.self, BenchStudy.self,
            ExpressionTable.self, ResumeBench.self, Fleet.self, FleetFaults.self,
        ]
    )

    static func main() async {
        // Measured as the mien tool runs (see ProcessTuning).
        ProcessTuning.limitMallocArenas()
        do {
            var command = try parseAsRoot(nil)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
