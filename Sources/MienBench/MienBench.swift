@main struct MienBench { static func main() {} }
