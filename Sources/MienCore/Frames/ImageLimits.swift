/// Limits applied to still images before their pixels are allocated.
public enum ImageLimits {
    /// The largest image Mien decodes, in pixels: 100 megapixels (about 300 MB once decoded to BGR).
    ///
    /// A 20000 x 20000 picture (400 MP, 1.2 GB decoded) is refused from its header, before decoding,
    /// so one huge file cannot exhaust the memory a batch job shares with its other inputs.
    public static let maximumPixels = 100_000_000
}
