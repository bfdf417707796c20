import RealModule

/// The logistic function 1 / (1 + e^-x): turns a model's logit into a probability in 0...1.
public func logistic(_ x: Double) -> Double { 1 / (1 + Double.exp(-x)) }
