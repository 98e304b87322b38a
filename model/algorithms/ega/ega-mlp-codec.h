/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The learned EGA codec (D. Zeng, S. Liu, S. Liang, Z. Li, H. Wang, I. King, Z. Xu, "Encoded
 * Gradients Aggregation against Gradient Leakage in Federated Learning", arXiv:2205.13216, 2022,
 * Sections 3.2 and 4.1), pure (no ns-3 header): a residual-MLP encoder E_c : Q_s^b -> R^h and
 * decoder D_c : R^h -> R^b in Eigen, with hand-written backpropagation for the training of
 * Algorithm 1 (ega-trainer.h).
 *
 * Architecture (it gives the paper's 6,824,704 parameters; "width" w, "depth" residual blocks,
 * "expansion" e):
 *   encoder: Linear(b, w) - ReLU - Linear(w, w) - depth x Residual(w, e w) - Linear(w, h)
 *   decoder: Linear(h, w) - depth x Residual(w, e w) - Linear(w, w) - Linear(w, b)
 *   Residual(w, e w): x + ReLU(W2 ReLU(W1 x + c1) + c2), W1 : w -> e w, W2 : e w -> w.
 * With b = h = 256, w = 512, depth 3, e = 4 each network has 6,824,704 parameters, the paper's
 * count for its MNIST encoder. Two fixed scalings (our choice; the paper is silent) keep the
 * networks in a unit range: the encoder sees l / s and the decoder's output is multiplied by s,
 * so both the codec's inputs and outputs are in quantised units and sigma is too.
 *
 * Layout: each network's parameters are one flat vector, layer after layer; a Linear(in, out)
 * stores W (out x in, column-major) then its bias (out); a Residual stores W1, c1, W2, c2.
 *
 * File format (EgaMlpCodec::Save / Load; every field little-endian):
 *   offset size  field
 *        0    8  magic "FLEGACOD"
 *        8    4  format version (kEgaCodecFileVersion = 1)
 *       12    4  weight precision: 1 = float64, 2 = float32 (fl::Precision)
 *       16   28  b, h, width, depth, expansion, s, m (uint32 each)
 *       44    4  flags, 0
 *       48    8  held-out sigma (float64, quantised units; NaN if not measured)
 *       56    8  encoder parameter count (uint64)
 *       64    8  decoder parameter count (uint64)
 *       72  ...  encoder then decoder parameters in the layout above, in the weight precision
 *    end-4    4  CRC-32 (zlib) of every preceding byte
 * A reader rejects, with a DataError naming the file, the problem and the fix, any file that is
 * truncated or longer than its header says, has another magic or version, a shape outside the
 * limits below, parameter counts that do not match the shape, a bad CRC or a non-finite weight.
 */
#ifndef FL_EGA_MLP_CODEC_H
#define FL_EGA_MLP_CODEC_H

#include "ns3/ega-codec.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

/// Format version written and read by EgaMlpCodec.
constexpr uint32_t kEgaCodecFileVersion = 1;

/// Size in bytes of the codec file header (before the weights).
constexpr std::size_t kEgaCodecHeaderBytes = 72;

/**
 * Shape of a residual-MLP codec. Limits: b, h, width in [1, 65536], depth <= 1024, expansion in
 * [1, 64]. The defaults are the module's default codec (41,504 parameters per network, trained
 * in about a minute of CPU, doc/fl-ega.rst "EGA codec"); the paper's is {256, 256, 512, 3, 4}.
 */
struct EgaMlpShape
{
    uint32_t blockSize = 32; ///< b: encoder input, decoder output
    uint32_t codeSize = 32;  ///< h: encoder output, decoder input
    uint32_t width = 64;     ///< w: hidden width
    uint32_t depth = 2;      ///< residual blocks per network
    uint32_t expansion = 2;  ///< e: a residual block's inner width is e w

    /// Throws ConfigError naming the first field outside its limits.
    void Validate() const;
};

/**
 * One feed-forward network (the encoder or the decoder) over a flat parameter vector. Samples
 * are columns. Forward is the inference path; ForwardTape/Backward are the training path.
 */
class EgaMlp
{
  public:
    /// Kind of a layer.
    enum class LayerKind : uint8_t
    {
        Linear,   ///< y = W x + c
        Relu,     ///< y = max(x, 0)
        Residual, ///< y = x + ReLU(W2 ReLU(W1 x + c1) + c2)
    };

    /// One layer: its kind, input and output widths, inner width (Residual) and parameter offset.
    struct Layer
    {
        LayerKind kind;
        uint32_t in;
        uint32_t out;
        uint32_t hidden;
        std::size_t offset;
    };

    /// What ForwardTape keeps for Backward: each layer's input, and per Residual its ReLU(W1 x +
    /// c1) and W2 ReLU(.) + c2.
    struct Tape
    {
        std::vector<Eigen::MatrixXd> input;
        std::vector<Eigen::MatrixXd> inner;
        std::vector<Eigen::MatrixXd> preact;
        Eigen::MatrixXd output;
    };

    /// The encoder of `shape` (validated).
    static EgaMlp Encoder(const EgaMlpShape& shape);
    /// The decoder of `shape` (validated).
    static EgaMlp Decoder(const EgaMlpShape& shape);

    /// The layers in order.
    const std::vector<Layer>& Layers() const
    {
        return m_layers;
    }

    /// Number of parameters.
    std::size_t NumParameters() const
    {
        return m_numParameters;
    }

    /// Input width.
    uint32_t InputSize() const;
    /// Output width.
    uint32_t OutputSize() const;

    /**
     * He-style initialisation: weights of a Linear followed by a ReLU and W1 ~ N(0, 2/in), other
     * weights ~ N(0, 1/in), biases 0. `params` must have NumParameters() entries.
     */
    void Initialize(Eigen::Ref<Eigen::VectorXd> params, Rng& rng) const;

    /**
     * y = f(inputScale x), every column a sample (inputScale is folded into the first matrix
     * product). `y` must not share memory with `x`. Throws ConfigError naming "x" on a wrong row
     * count, "params" on a wrong size.
     */
    void Forward(const Eigen::Ref<const Eigen::VectorXd>& params,
                 const Eigen::Ref<const Eigen::MatrixXd>& x,
                 Eigen::MatrixXd& y,
                 double inputScale = 1.0) const;

    /// Forward pass that records the tape; tape.output = f(x).
    void ForwardTape(const Eigen::Ref<const Eigen::VectorXd>& params,
                     const Eigen::Ref<const Eigen::MatrixXd>& x,
                     Tape& tape) const;

    /**
     * Backpropagates dL/dy (same shape as tape.output) through the tape: *adds* dL/dparams to
     * `grad` and, if dx is not null, sets *dx = dL/dx.
     */
    void Backward(const Eigen::Ref<const Eigen::VectorXd>& params,
                  const Tape& tape,
                  const Eigen::Ref<const Eigen::MatrixXd>& dy,
                  Eigen::Ref<Eigen::VectorXd> grad,
                  Eigen::MatrixXd* dx) const;

  private:
    void AddLinear(uint32_t in, uint32_t out);
    void AddRelu(uint32_t width);
    void AddResidual(uint32_t width, uint32_t hidden);
    void CheckParams(Eigen::Index size) const;

    std::vector<Layer> m_layers;
    std::size_t m_numParameters{0};
};

/**
 * The learned codec: encoder and decoder networks of one shape, trained for level s and m
 * clients. Encode maps all K blocks of a client with one matrix product per layer.
 */
class EgaMlpCodec : public EgaCodec
{
  public:
    /**
     * A codec with freshly initialised weights (EgaMlp::Initialize, encoder then decoder from
     * `rng`). Throws ConfigError naming the bad shape field, "s" or "m".
     */
    EgaMlpCodec(const EgaMlpShape& shape, uint32_t s, uint32_t m, Rng& rng);

    uint32_t BlockSize() const override;
    uint32_t CodeSize() const override;
    uint32_t DesignLevel() const override;
    uint32_t DesignClients() const override;
    void Encode(const Eigen::Ref<const Eigen::MatrixXd>& blocks,
                Eigen::MatrixXd& codes) const override;
    void Decode(const Eigen::Ref<const Eigen::MatrixXd>& meanCodes,
                Eigen::MatrixXd& blocks,
                Rng& rng) const override;
    std::string Name() const override;

    /// The shape.
    const EgaMlpShape& Shape() const
    {
        return m_shape;
    }

    /// The encoder network.
    const EgaMlp& EncoderNet() const
    {
        return m_encoder;
    }

    /// The decoder network.
    const EgaMlp& DecoderNet() const
    {
        return m_decoder;
    }

    /// Encoder parameters (flat, EgaMlp layout); mutable for the trainer.
    Eigen::VectorXd& EncoderParameters()
    {
        return m_encoderParams;
    }

    /// Encoder parameters.
    const Eigen::VectorXd& EncoderParameters() const
    {
        return m_encoderParams;
    }

    /// Decoder parameters (flat, EgaMlp layout); mutable for the trainer.
    Eigen::VectorXd& DecoderParameters()
    {
        return m_decoderParams;
    }

    /// Decoder parameters.
    const Eigen::VectorXd& DecoderParameters() const
    {
        return m_decoderParams;
    }

    /// Held-out error sigma in quantised units (NaN if never measured).
    double HeldOutSigma() const
    {
        return m_heldOutSigma;
    }

    /// Records the held-out sigma (stored in the file).
    void SetHeldOutSigma(double sigma)
    {
        m_heldOutSigma = sigma;
    }

    /// Rounds every weight to `precision` (float32: what a float32 file stores and loads back).
    void RoundWeights(Precision precision);

    /// The file image (see the format above) with weights in `precision`.
    std::vector<uint8_t> Serialize(Precision precision = Precision::Float64) const;

    /**
     * Parses a file image; `source` names it in errors. Throws DataError on any defect listed in
     * the format description; never reads outside [data, data + size).
     */
    static EgaMlpCodec Deserialize(const uint8_t* data,
                                   std::size_t size,
                                   const std::string& source);

    /// Writes Serialize(precision) to `path`; throws DataError if the file cannot be written.
    void Save(const std::string& path, Precision precision = Precision::Float64) const;

    /**
     * Reads a codec file; throws DataError if it is missing, unreadable or defective. The header
     * is checked before the weights are read, so a corrupt size never allocates memory.
     */
    static EgaMlpCodec Load(const std::string& path);

  private:
    EgaMlpCodec(const EgaMlpShape& shape, uint32_t s, uint32_t m);

    EgaMlpShape m_shape;
    uint32_t m_s;
    uint32_t m_m;
    EgaMlp m_encoder;
    EgaMlp m_decoder;
    Eigen::VectorXd m_encoderParams;
    Eigen::VectorXd m_decoderParams;
    double m_heldOutSigma;
};

} // namespace fl
} // namespace ns3

#endif // FL_EGA_MLP_CODEC_H
