// `import Mien` brings the whole public vocabulary: values and protocols from MienCore, OpenCV-backed
// stages and sources from MienVision.
@_exported public import MienCore
@_exported public import MienVision
