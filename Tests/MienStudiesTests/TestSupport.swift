import MienTesting
import Testing

extension Trait where Self == ConditionTrait {
    /// For tests that read the evaluation data (../shared/eval, or EVAL_DIR): skipped when it is absent, which
    /// under CI=true `scripts/test-summary.sh` reports as a failure.
    static var needsEvaluationData: Self {
        .enabled(
            if: SampleMedia.evaluationData != .absent, "needs the evaluation data (../shared/eval or EVAL_DIR)")
    }
}
