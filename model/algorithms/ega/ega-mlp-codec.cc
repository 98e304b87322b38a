/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The learned EGA codec: residual MLPs, backpropagation and the codec file (ega-mlp-codec.h).
 */
#include "ns3/ega-mlp-codec.h"

#include "ns3/ega-quantizer.h"
#include "ns3/wire-bytes.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <zlib.h>

namespace ns3
{
namespace fl
{

namespace
{

using ConstMap = Eigen::Map<const Eigen::MatrixXd>;
using ConstVecMap = Eigen::Map<const Eigen::VectorXd>;
using MutMap = Eigen::Map<Eigen::MatrixXd>;
using MutVecMap = Eigen::Map<Eigen::VectorXd>;

constexpr uint32_t kMaxWidth = 65536;
constexpr uint32_t kMaxDepth = 1024;
constexpr uint32_t kMaxExpansion = 64;
constexpr uint32_t kMaxClients = 1u << 20;
const char kMagic[8] = {'F', 'L', 'E', 'G', 'A', 'C', 'O', 'D'};

void
CheckRange(uint32_t value, uint32_t lo, uint32_t hi, const char* name, const char* fix)
{
    if (value < lo || value > hi)
    {
        throw ConfigError(name,
                          std::to_string(value) + " is outside [" + std::to_string(lo) + ", " +
                              std::to_string(hi) + "]",
                          fix);
    }
}

} // namespace

void
EgaMlpShape::Validate() const
{
    CheckRange(blockSize, 1, kMaxWidth, "b", "use a block length b >= 1 (the paper uses 256)");
    CheckRange(codeSize, 1, kMaxWidth, "h", "use a code length h >= 1 (h < b compresses)");
    CheckRange(width, 1, kMaxWidth, "width", "use a hidden width >= 1 (the paper's is 512)");
    CheckRange(depth, 0, kMaxDepth, "depth", "use 0 to a few residual blocks (the paper's 3)");
    CheckRange(expansion, 1, kMaxExpansion, "expansion", "use an expansion >= 1 (the paper's 4)");
}

// ----------------------------------------------------------------------------------- EgaMlp

void
EgaMlp::AddLinear(uint32_t in, uint32_t out)
{
    m_layers.push_back({LayerKind::Linear, in, out, 0, m_numParameters});
    m_numParameters += static_cast<std::size_t>(out) * in + out;
}

void
EgaMlp::AddRelu(uint32_t width)
{
    m_layers.push_back({LayerKind::Relu, width, width, 0, m_numParameters});
}

void
EgaMlp::AddResidual(uint32_t width, uint32_t hidden)
{
    m_layers.push_back({LayerKind::Residual, width, width, hidden, m_numParameters});
    m_numParameters += 2 * static_cast<std::size_t>(width) * hidden + hidden + width;
}

EgaMlp
EgaMlp::Encoder(const EgaMlpShape& shape)
{
    shape.Validate();
    EgaMlp net;
    const uint32_t w = shape.width;
    net.AddLinear(shape.blockSize, w);
    net.AddRelu(w);
    net.AddLinear(w, w);
    for (uint32_t k = 0; k < shape.depth; ++k)
    {
        net.AddResidual(w, shape.expansion * w);
    }
    net.AddLinear(w, shape.codeSize);
    return net;
}

EgaMlp
EgaMlp::Decoder(const EgaMlpShape& shape)
{
    shape.Validate();
    EgaMlp net;
    const uint32_t w = shape.width;
    net.AddLinear(shape.codeSize, w);
    for (uint32_t k = 0; k < shape.depth; ++k)
    {
        net.AddResidual(w, shape.expansion * w);
    }
    net.AddLinear(w, w);
    net.AddLinear(w, shape.blockSize);
    return net;
}

uint32_t
EgaMlp::InputSize() const
{
    return m_layers.front().in;
}

uint32_t
EgaMlp::OutputSize() const
{
    return m_layers.back().out;
}

void
EgaMlp::CheckParams(Eigen::Index size) const
{
    if (size != static_cast<Eigen::Index>(m_numParameters))
    {
        throw ConfigError("params",
                          "parameter vector has " + std::to_string(size) +
                              " entries, the network " + std::to_string(m_numParameters),
                          "pass the vector of this network's shape");
    }
}

void
EgaMlp::Initialize(Eigen::Ref<Eigen::VectorXd> params, Rng& rng) const
{
    CheckParams(params.size());
    std::normal_distribution<double> normal(0.0, 1.0);
    auto fill = [&](std::size_t offset, std::size_t count, double sd) {
        for (std::size_t i = 0; i < count; ++i)
        {
            params[static_cast<Eigen::Index>(offset + i)] = sd * normal(rng);
        }
    };
    params.setZero();
    for (std::size_t i = 0; i < m_layers.size(); ++i)
    {
        const Layer& l = m_layers[i];
        if (l.kind == LayerKind::Linear)
        {
            const bool relu = i + 1 < m_layers.size() && m_layers[i + 1].kind == LayerKind::Relu;
            fill(l.offset,
                 static_cast<std::size_t>(l.out) * l.in,
                 std::sqrt((relu ? 2.0 : 1.0) / l.in));
        }
        else if (l.kind == LayerKind::Residual)
        {
            const std::size_t w1 = static_cast<std::size_t>(l.hidden) * l.in;
            fill(l.offset, w1, std::sqrt(2.0 / l.in));
            fill(l.offset + w1 + l.hidden,
                 static_cast<std::size_t>(l.out) * l.hidden,
                 std::sqrt(1.0 / l.hidden));
        }
    }
}

void
EgaMlp::Forward(const Eigen::Ref<const Eigen::VectorXd>& params,
                const Eigen::Ref<const Eigen::MatrixXd>& x,
                Eigen::MatrixXd& y,
                double inputScale) const
{
    CheckParams(params.size());
    if (x.rows() != static_cast<Eigen::Index>(InputSize()))
    {
        throw ConfigError("x",
                          "input has " + std::to_string(x.rows()) + " rows, the network " +
                              std::to_string(InputSize()),
                          "pass one sample of the network's input width per column");
    }
    const double* p = params.data();
    const Eigen::Index cols = x.cols();
    Eigen::MatrixXd cur;
    Eigen::MatrixXd next;
    Eigen::MatrixXd inner;
    for (std::size_t i = 0; i < m_layers.size(); ++i)
    {
        const Layer& l = m_layers[i];
        switch (l.kind)
        {
        case LayerKind::Linear: {
            const ConstMap w(p + l.offset, l.out, l.in);
            const ConstVecMap c(p + l.offset + static_cast<std::size_t>(l.out) * l.in, l.out);
            Eigen::MatrixXd& dst = (i + 1 == m_layers.size()) ? y : next;
            if (i == 0)
            {
                dst.resize(l.out, cols);
                dst.noalias() = inputScale * w * x;
            }
            else
            {
                dst.resize(l.out, cols);
                dst.noalias() = w * cur;
            }
            dst.colwise() += c;
            if (&dst == &next)
            {
                cur.swap(next);
            }
            break;
        }
        case LayerKind::Relu:
            cur = cur.cwiseMax(0.0);
            if (i + 1 == m_layers.size())
            {
                y = cur;
            }
            break;
        case LayerKind::Residual: {
            const std::size_t w1Size = static_cast<std::size_t>(l.hidden) * l.in;
            const ConstMap w1(p + l.offset, l.hidden, l.in);
            const ConstVecMap c1(p + l.offset + w1Size, l.hidden);
            const ConstMap w2(p + l.offset + w1Size + l.hidden, l.out, l.hidden);
            const ConstVecMap c2(p + l.offset + 2 * w1Size + l.hidden, l.out);
            inner.resize(l.hidden, cols);
            inner.noalias() = w1 * cur;
            inner.colwise() += c1;
            inner = inner.cwiseMax(0.0);
            next.resize(l.out, cols);
            next.noalias() = w2 * inner;
            next.colwise() += c2;
            cur += next.cwiseMax(0.0);
            if (i + 1 == m_layers.size())
            {
                y = cur;
            }
            break;
        }
        }
    }
}

void
EgaMlp::ForwardTape(const Eigen::Ref<const Eigen::VectorXd>& params,
                    const Eigen::Ref<const Eigen::MatrixXd>& x,
                    Tape& tape) const
{
    CheckParams(params.size());
    if (x.rows() != static_cast<Eigen::Index>(InputSize()))
    {
        throw ConfigError("x",
                          "input has " + std::to_string(x.rows()) + " rows, the network " +
                              std::to_string(InputSize()),
                          "pass one sample of the network's input width per column");
    }
    const double* p = params.data();
    const std::size_t n = m_layers.size();
    tape.input.resize(n);
    tape.inner.resize(n);
    tape.preact.resize(n);
    tape.input[0] = x;
    for (std::size_t i = 0; i < n; ++i)
    {
        const Layer& l = m_layers[i];
        const Eigen::MatrixXd& in = tape.input[i];
        Eigen::MatrixXd& out = (i + 1 == n) ? tape.output : tape.input[i + 1];
        switch (l.kind)
        {
        case LayerKind::Linear: {
            const ConstMap w(p + l.offset, l.out, l.in);
            const ConstVecMap c(p + l.offset + static_cast<std::size_t>(l.out) * l.in, l.out);
            out.resize(l.out, in.cols());
            out.noalias() = w * in;
            out.colwise() += c;
            break;
        }
        case LayerKind::Relu:
            out = in.cwiseMax(0.0);
            break;
        case LayerKind::Residual: {
            const std::size_t w1Size = static_cast<std::size_t>(l.hidden) * l.in;
            const ConstMap w1(p + l.offset, l.hidden, l.in);
            const ConstVecMap c1(p + l.offset + w1Size, l.hidden);
            const ConstMap w2(p + l.offset + w1Size + l.hidden, l.out, l.hidden);
            const ConstVecMap c2(p + l.offset + 2 * w1Size + l.hidden, l.out);
            Eigen::MatrixXd& a1 = tape.inner[i];
            a1.resize(l.hidden, in.cols());
            a1.noalias() = w1 * in;
            a1.colwise() += c1;
            a1 = a1.cwiseMax(0.0);
            Eigen::MatrixXd& h2 = tape.preact[i];
            h2.resize(l.out, in.cols());
            h2.noalias() = w2 * a1;
            h2.colwise() += c2;
            out = in + h2.cwiseMax(0.0);
            break;
        }
        }
    }
}

void
EgaMlp::Backward(const Eigen::Ref<const Eigen::VectorXd>& params,
                 const Tape& tape,
                 const Eigen::Ref<const Eigen::MatrixXd>& dy,
                 Eigen::Ref<Eigen::VectorXd> grad,
                 Eigen::MatrixXd* dx) const
{
    CheckParams(params.size());
    CheckParams(grad.size());
    if (dy.rows() != tape.output.rows() || dy.cols() != tape.output.cols())
    {
        throw ConfigError("dy", "gradient shape differs from the tape's output", "pass dL/dy");
    }
    const double* p = params.data();
    double* g = grad.data();
    Eigen::MatrixXd cur = dy;
    Eigen::MatrixXd tmp;
    for (std::size_t k = m_layers.size(); k-- > 0;)
    {
        const Layer& l = m_layers[k];
        const Eigen::MatrixXd& in = tape.input[k];
        const bool needInput = k > 0 || dx != nullptr;
        switch (l.kind)
        {
        case LayerKind::Linear: {
            const std::size_t wSize = static_cast<std::size_t>(l.out) * l.in;
            MutMap gw(g + l.offset, l.out, l.in);
            MutVecMap gc(g + l.offset + wSize, l.out);
            gw.noalias() += cur * in.transpose();
            gc += cur.rowwise().sum();
            if (needInput)
            {
                const ConstMap w(p + l.offset, l.out, l.in);
                tmp.resize(l.in, cur.cols());
                tmp.noalias() = w.transpose() * cur;
                cur.swap(tmp);
            }
            break;
        }
        case LayerKind::Relu:
            cur = (in.array() > 0.0).select(cur, 0.0);
            break;
        case LayerKind::Residual: {
            const std::size_t w1Size = static_cast<std::size_t>(l.hidden) * l.in;
            const ConstMap w1(p + l.offset, l.hidden, l.in);
            const ConstMap w2(p + l.offset + w1Size + l.hidden, l.out, l.hidden);
            MutMap gw1(g + l.offset, l.hidden, l.in);
            MutVecMap gc1(g + l.offset + w1Size, l.hidden);
            MutMap gw2(g + l.offset + w1Size + l.hidden, l.out, l.hidden);
            MutVecMap gc2(g + l.offset + 2 * w1Size + l.hidden, l.out);
            const Eigen::MatrixXd& a1 = tape.inner[k];
            const Eigen::MatrixXd dh2 = (tape.preact[k].array() > 0.0).select(cur, 0.0);
            gw2.noalias() += dh2 * a1.transpose();
            gc2 += dh2.rowwise().sum();
            Eigen::MatrixXd dh1(l.hidden, cur.cols());
            dh1.noalias() = w2.transpose() * dh2;
            dh1 = (a1.array() > 0.0).select(dh1, 0.0);
            gw1.noalias() += dh1 * in.transpose();
            gc1 += dh1.rowwise().sum();
            if (needInput)
            {
                cur.noalias() += w1.transpose() * dh1;
            }
            break;
        }
        }
    }
    if (dx != nullptr)
    {
        dx->swap(cur);
    }
}

// ------------------------------------------------------------------------------ EgaMlpCodec

EgaMlpCodec::EgaMlpCodec(const EgaMlpShape& shape, uint32_t s, uint32_t m)
    : m_shape(shape),
      m_s(s),
      m_m(m),
      m_encoder(EgaMlp::Encoder(shape)),
      m_decoder(EgaMlp::Decoder(shape)),
      m_heldOutSigma(std::numeric_limits<double>::quiet_NaN())
{
    ValidateEgaQuantizer(s, 1.0);
    CheckRange(m, 1, kMaxClients, "m", "train the codec for the clients per round, m >= 1");
    m_encoderParams = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(m_encoder.NumParameters()));
    m_decoderParams = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(m_decoder.NumParameters()));
}

EgaMlpCodec::EgaMlpCodec(const EgaMlpShape& shape, uint32_t s, uint32_t m, Rng& rng)
    : EgaMlpCodec(shape, s, m)
{
    m_encoder.Initialize(m_encoderParams, rng);
    m_decoder.Initialize(m_decoderParams, rng);
}

uint32_t
EgaMlpCodec::BlockSize() const
{
    return m_shape.blockSize;
}

uint32_t
EgaMlpCodec::CodeSize() const
{
    return m_shape.codeSize;
}

uint32_t
EgaMlpCodec::DesignLevel() const
{
    return m_s;
}

uint32_t
EgaMlpCodec::DesignClients() const
{
    return m_m;
}

void
EgaMlpCodec::Encode(const Eigen::Ref<const Eigen::MatrixXd>& blocks, Eigen::MatrixXd& codes) const
{
    CheckRows(blocks.rows(), m_shape.blockSize, "blocks", "blocks");
    m_encoder.Forward(m_encoderParams, blocks, codes, 1.0 / static_cast<double>(m_s));
}

void
EgaMlpCodec::Decode(const Eigen::Ref<const Eigen::MatrixXd>& meanCodes,
                    Eigen::MatrixXd& blocks,
                    Rng& /* rng */) const
{
    CheckRows(meanCodes.rows(), m_shape.codeSize, "codes", "codes");
    m_decoder.Forward(m_decoderParams, meanCodes, blocks);
    blocks *= static_cast<double>(m_s);
}

std::string
EgaMlpCodec::Name() const
{
    return "mlp";
}

void
EgaMlpCodec::RoundWeights(Precision precision)
{
    if (precision == Precision::Float32)
    {
        m_encoderParams = m_encoderParams.cast<float>().cast<double>();
        m_decoderParams = m_decoderParams.cast<float>().cast<double>();
    }
}

// ---------------------------------------------------------------------------------- the file

namespace
{

void
PutU64(uint8_t* p, uint64_t v)
{
    std::memcpy(p, &v, 8);
}

uint64_t
GetU64(const uint8_t* p)
{
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

uint32_t
Crc32(const uint8_t* data, std::size_t len)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    while (len > 0)
    {
        const uInt chunk = static_cast<uInt>(std::min<std::size_t>(len, 1u << 30));
        crc = crc32(crc, data, chunk);
        data += chunk;
        len -= chunk;
    }
    return static_cast<uint32_t>(crc);
}

/// Header fields of a codec file.
struct FileHeader
{
    uint32_t version;
    uint32_t precision;
    EgaMlpShape shape;
    uint32_t s;
    uint32_t m;
    uint32_t flags;
    double sigma;
    uint64_t encoderCount;
    uint64_t decoderCount;
};

[[noreturn]] void
Reject(const std::string& source, const std::string& problem)
{
    throw DataError("EGA codec file '" + source + "': " + problem +
                    " (fix: use a file written by fl-ega-train / EgaMlpCodec::Save of this "
                    "version, or retrain the codec)");
}

/// Parses and checks the header; returns the total file size it implies.
uint64_t
ParseHeader(const uint8_t* data, std::size_t size, const std::string& source, FileHeader& h)
{
    if (size < kEgaCodecHeaderBytes)
    {
        Reject(source,
               "truncated: " + std::to_string(size) + " bytes, shorter than the " +
                   std::to_string(kEgaCodecHeaderBytes) + "-byte header");
    }
    if (std::memcmp(data, kMagic, 8) != 0)
    {
        Reject(source, "not an EGA codec file (magic is not \"FLEGACOD\")");
    }
    h.version = GetU32(data + 8);
    if (h.version != kEgaCodecFileVersion)
    {
        Reject(source,
               "format version " + std::to_string(h.version) + ", this build reads version " +
                   std::to_string(kEgaCodecFileVersion));
    }
    h.precision = GetU32(data + 12);
    if (h.precision != static_cast<uint32_t>(Precision::Float64) &&
        h.precision != static_cast<uint32_t>(Precision::Float32))
    {
        Reject(source, "unknown weight precision code " + std::to_string(h.precision));
    }
    h.shape.blockSize = GetU32(data + 16);
    h.shape.codeSize = GetU32(data + 20);
    h.shape.width = GetU32(data + 24);
    h.shape.depth = GetU32(data + 28);
    h.shape.expansion = GetU32(data + 32);
    h.s = GetU32(data + 36);
    h.m = GetU32(data + 40);
    h.flags = GetU32(data + 44);
    std::memcpy(&h.sigma, data + 48, 8);
    h.encoderCount = GetU64(data + 56);
    h.decoderCount = GetU64(data + 64);
    try
    {
        h.shape.Validate();
        ValidateEgaQuantizer(h.s, 1.0);
        CheckRange(h.m, 1, kMaxClients, "m", "m >= 1");
    }
    catch (const ConfigError& e)
    {
        Reject(source, std::string("bad shape in the header: ") + e.what());
    }
    if (h.flags != 0)
    {
        Reject(source, "unknown flags " + std::to_string(h.flags));
    }
    if (!(std::isnan(h.sigma) || (std::isfinite(h.sigma) && h.sigma >= 0.0)))
    {
        Reject(source, "held-out sigma is negative or infinite");
    }
    const std::size_t enc = EgaMlp::Encoder(h.shape).NumParameters();
    const std::size_t dec = EgaMlp::Decoder(h.shape).NumParameters();
    if (h.encoderCount != enc || h.decoderCount != dec)
    {
        Reject(source,
               "parameter counts " + std::to_string(h.encoderCount) + " + " +
                   std::to_string(h.decoderCount) + " do not match the shape's " +
                   std::to_string(enc) + " + " + std::to_string(dec));
    }
    const uint64_t bytes = PrecisionBytes(static_cast<Precision>(h.precision));
    return kEgaCodecHeaderBytes + (static_cast<uint64_t>(enc) + dec) * bytes + 4;
}

} // namespace

std::vector<uint8_t>
EgaMlpCodec::Serialize(Precision precision) const
{
    const std::size_t enc = static_cast<std::size_t>(m_encoderParams.size());
    const std::size_t dec = static_cast<std::size_t>(m_decoderParams.size());
    const std::size_t bytes = PrecisionBytes(precision);
    std::vector<uint8_t> out(kEgaCodecHeaderBytes + (enc + dec) * bytes + 4, 0);
    uint8_t* p = out.data();
    std::memcpy(p, kMagic, 8);
    PutU32(p + 8, kEgaCodecFileVersion);
    PutU32(p + 12, static_cast<uint32_t>(precision));
    PutU32(p + 16, m_shape.blockSize);
    PutU32(p + 20, m_shape.codeSize);
    PutU32(p + 24, m_shape.width);
    PutU32(p + 28, m_shape.depth);
    PutU32(p + 32, m_shape.expansion);
    PutU32(p + 36, m_s);
    PutU32(p + 40, m_m);
    PutU32(p + 44, 0);
    std::memcpy(p + 48, &m_heldOutSigma, 8);
    PutU64(p + 56, enc);
    PutU64(p + 64, dec);
    uint8_t* w = p + kEgaCodecHeaderBytes;
    for (const Eigen::VectorXd* v : {&m_encoderParams, &m_decoderParams})
    {
        for (Eigen::Index i = 0; i < v->size(); ++i)
        {
            if (precision == Precision::Float64)
            {
                const double x = (*v)[i];
                std::memcpy(w, &x, 8);
            }
            else
            {
                const float x = static_cast<float>((*v)[i]);
                std::memcpy(w, &x, 4);
            }
            w += bytes;
        }
    }
    PutU32(w, Crc32(p, out.size() - 4));
    return out;
}

EgaMlpCodec
EgaMlpCodec::Deserialize(const uint8_t* data, std::size_t size, const std::string& source)
{
    FileHeader h;
    const uint64_t expected = ParseHeader(data, size, source, h);
    if (size < expected)
    {
        Reject(source,
               "truncated: " + std::to_string(size) + " bytes, the header announces " +
                   std::to_string(expected));
    }
    if (size > expected)
    {
        Reject(source,
               std::to_string(size - expected) + " trailing bytes after the " +
                   std::to_string(expected) + " the header announces");
    }
    if (Crc32(data, size - 4) != GetU32(data + size - 4))
    {
        Reject(source, "CRC-32 mismatch: the file is corrupt");
    }
    EgaMlpCodec codec(h.shape, h.s, h.m);
    codec.m_heldOutSigma = h.sigma;
    const std::size_t bytes = PrecisionBytes(static_cast<Precision>(h.precision));
    const uint8_t* w = data + kEgaCodecHeaderBytes;
    for (Eigen::VectorXd* v : {&codec.m_encoderParams, &codec.m_decoderParams})
    {
        for (Eigen::Index i = 0; i < v->size(); ++i)
        {
            if (bytes == 8)
            {
                std::memcpy(&(*v)[i], w, 8);
            }
            else
            {
                float x;
                std::memcpy(&x, w, 4);
                (*v)[i] = x;
            }
            w += bytes;
        }
        if (!v->allFinite())
        {
            Reject(source, "a weight is not finite");
        }
    }
    return codec;
}

void
EgaMlpCodec::Save(const std::string& path, Precision precision) const
{
    const std::vector<uint8_t> bytes = Serialize(precision);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
    {
        throw DataError("cannot open '" + path +
                        "' to write the EGA codec (fix: check the "
                        "folder exists and is writable)");
    }
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out)
    {
        throw DataError("writing the EGA codec to '" + path + "' failed (fix: check free space)");
    }
}

EgaMlpCodec
EgaMlpCodec::Load(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw DataError("cannot open EGA codec file '" + path +
                        "' (fix: train one with fl-ega-train --output=" + path + ")");
    }
    in.seekg(0, std::ios::end);
    const std::streamoff end = in.tellg();
    in.seekg(0, std::ios::beg);
    if (end < 0)
    {
        Reject(path, "cannot determine its size");
    }
    const std::size_t size = static_cast<std::size_t>(end);
    std::vector<uint8_t> header(std::min(size, kEgaCodecHeaderBytes));
    in.read(reinterpret_cast<char*>(header.data()), static_cast<std::streamsize>(header.size()));
    FileHeader h;
    const uint64_t expected = ParseHeader(header.data(), header.size(), path, h);
    if (size != expected)
    {
        Reject(path,
               (size < expected ? "truncated: " : "wrong size: ") + std::to_string(size) +
                   " bytes, the header announces " + std::to_string(expected));
    }
    std::vector<uint8_t> bytes(size);
    std::memcpy(bytes.data(), header.data(), header.size());
    in.read(reinterpret_cast<char*>(bytes.data() + header.size()),
            static_cast<std::streamsize>(size - header.size()));
    if (!in)
    {
        Reject(path, "read error");
    }
    return Deserialize(bytes.data(), bytes.size(), path);
}

} // namespace fl
} // namespace ns3
