import ArgumentParser
import MienTesting

/// `MienDev make-clip`: writes a pan-and-zoom video of the bundled astronaut portrait.
struct MakeClip: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write a pan-and-zoom video of Samples/astronaut.jpg.")

    @Argument(help: "Output video (.mp4 or .avi; .y4m: raw frames for Chromium's fake camera).")
    var output: String

    @Option(help: "Width in pixels.") var width = 640
    @Option(help: "Height in pixels.") var height = 360
    @Option(help: "Number of frames.") var frames = 60
    @Option(help: "Frames per second.") var fps = 30.0

    func validate() throws {
        guard width >= 16, height >= 16, frames >= 1, fps > 0 else {
            throw ValidationError("width and height must be >= 16, frames >= 1, fps > 0")
        }
    }

    func run() throws {
        let clip = try SampleMedia.astronautClip(width: width, height: height, frameCount: frames, framesPerSecond: fps)
        if output.hasSuffix(".y4m") {
            try Y4MFile.write((0..<frames).map(clip.frame(at:)), framesPerSecond: Int(fps.rounded()), to: output)
        } else {
            try clip.write(to: output)
        }
        print("wrote \(output): \(width)x\(height), \(frames) frames at \(fps) fps")
    }
}
