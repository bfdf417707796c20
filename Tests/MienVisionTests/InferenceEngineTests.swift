import Foundation
import Mien
import MienTesting
import Testing

@testable import MienVision

@Suite("Inference on OpenVINO: one TBB, errors naming the model, lanes")
struct InferenceEngineTests {
    /// The shared libraries mapped into this process whose file name starts with `prefix`.
    private func mappedLibraries(_ prefix: String) throws -> Set<String> {
        // procfs files report size 0, so read to the end rather than by size.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
        defer { try? handle.close() }
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        return Set(
            maps.split(separator: "\n").compactMap { line in
                guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last,
                    path.hasPrefix("/"), URL(fileURLWithPath: String(path)).lastPathComponent.hasPrefix(prefix)
                else { return nil }
                return String(path)
            })
    }

    @Test func oneTBB_servesOpenCVAndOpenVINO() throws {
        // OpenCV (decoding, warping) and OpenVINO (the networks) both at work in this process.
        let analyzer = try FaceAnalyzer(mode: .image, models: repositoryModels())
        let frame = try ImageDecoder.decode(file: SampleMedia.astronautPath)
        #expect(try analyzer.analyze(frame).faces.count == 1)
        let openVINO = try mappedLibraries("libopenvino.so")
        let tbb = try mappedLibraries("libtbb.so")
        #expect(openVINO.count == 1, "OpenVINO libraries mapped: \(openVINO)")
        // Two copies would each keep their own worker threads and scheduler: exactly one may be loaded.
        #expect(tbb.count == 1, "oneTBB libraries mapped: \(tbb)")
        #expect(try !mappedLibraries("libopencv_core").isEmpty)
    }

    @Test func modelOpenVINOCannotRead_isModelInvalid_namingTheFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let garbage = Data("this is not an ONNX model".utf8)
        let name = "garbage.onnx"
        try garbage.write(to: scratch.url.appendingPathComponent(name))
        try Data("{}".utf8).write(to: scratch.url.appendingPathComponent(ModelStore.manifestName))
        let model = ModelDescriptor(
            identifier: "garbage", fileName: name, sha256: ModelStore.sha256(garbage), outputNames: ["out"],
            outputCounts: [1])
        let error = mienError { _ = try NeuralNetwork(model, store: try ModelStore(directory: scratch.url)) }
        #expect(error?.code == .modelInvalid)
        #expect(error?.input == name)
        #expect(error?.description.contains("OpenVINO") == true)
    }

    @Test func wrongOutputName_isModelInvalid() throws {
        let shipped = ModelDescriptor.blendshapes
        let renamed = ModelDescriptor(
            identifier: shipped.identifier, fileName: shipped.fileName, sha256: shipped.sha256,
            outputNames: ["no_such_output"], outputCounts: [52])
        let error = mienError { _ = try NeuralNetwork(renamed, store: try repositoryModels()) }
        #expect(error?.code == .modelInvalid)
        #expect(error?.input == shipped.fileName)
    }

    @Test func tensorOfTheWrongShape_isRefused_andTheNetworkStillRuns() throws {
        let network = try NeuralNetwork(.blendshapes, store: repositoryModels())
        let error = mienError { _ = try network.run(tensor: [Float](repeating: 0, count: 10), shape: [1, 10]) }
        #expect(error?.code == .invalidArgument)
        let input = [Float](repeating: 100, count: 146 * 2)
        #expect(try network.run(tensor: input, shape: [1, 146, 2]).first?.count == 52)
    }

    @Test func lanes_shareTheCompiledModel_andAgreeExactly() throws {
        let network = try NeuralNetwork(.blendshapes, store: repositoryModels())
        let lane = try network.lane()
        let input = (0..<(146 * 2)).map { Float($0 % 97) * 3 }
        let first = try network.run(tensor: input, shape: [1, 146, 2])
        let second = try lane.run(tensor: input, shape: [1, 146, 2])
        #expect(first == second)
        // A second network of the same model in this process reuses the compiled model: same results.
        let again = try NeuralNetwork(.blendshapes, store: repositoryModels())
        #expect(try again.run(tensor: input, shape: [1, 146, 2]) == first)
    }
}
