/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/data-io.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string_view>
#include <zlib.h>

namespace ns3
{
namespace fl
{

namespace
{

/// Bytes requested from zlib per gzread call (well below the unsigned int limit of gzread).
constexpr std::size_t READ_CHUNK = std::size_t(1) << 24;

/**
 * Owns a zlib file handle. gzopen/gzread read plain files transparently, so one code path
 * serves plain and gzip-compressed files (detected from the content, not the name).
 */
class GzFile
{
  public:
    GzFile(const std::string& path, const std::string& what)
        : m_path(path),
          m_what(what)
    {
        errno = 0;
        m_file = gzopen(path.c_str(), "rb");
        if (m_file == nullptr)
        {
            const int err = errno;
            throw DataError("cannot open " + what + " '" + path +
                            "': " + (err != 0 ? std::strerror(err) : "out of memory"));
        }
        gzbuffer(m_file, 1U << 17);
    }

    ~GzFile()
    {
        if (m_file != nullptr)
        {
            gzclose(m_file);
        }
    }

    GzFile(const GzFile&) = delete;
    GzFile& operator=(const GzFile&) = delete;

    /// Reads up to `count` bytes into `out`; returns the number read (short only at end of file).
    std::size_t Read(void* out, std::size_t count)
    {
        auto* dst = static_cast<unsigned char*>(out);
        std::size_t done = 0;
        while (done < count)
        {
            const auto want = static_cast<unsigned>(std::min(count - done, READ_CHUNK));
            const int got = gzread(m_file, dst + done, want);
            if (got < 0)
            {
                int code = 0;
                const char* msg = gzerror(m_file, &code);
                throw DataError("cannot read " + m_what + " '" + m_path +
                                "': " + (msg != nullptr ? msg : "read error"));
            }
            done += static_cast<std::size_t>(got);
            if (static_cast<unsigned>(got) < want)
            {
                break;
            }
        }
        return done;
    }

  private:
    gzFile m_file{nullptr};
    std::string m_path;
    std::string m_what;
};

/// Size in bytes of one element of an IDX type code, or 0 for an unknown code.
std::size_t
IdxElementSize(uint8_t typeCode)
{
    switch (typeCode)
    {
    case 0x08:
    case 0x09:
        return 1;
    case 0x0B:
        return 2;
    case 0x0C:
    case 0x0D:
        return 4;
    case 0x0E:
        return 8;
    default:
        return 0;
    }
}

/// Name of an IDX type code, for messages.
const char*
IdxTypeName(uint8_t typeCode)
{
    switch (typeCode)
    {
    case 0x08:
        return "ubyte";
    case 0x09:
        return "byte";
    case 0x0B:
        return "int16";
    case 0x0C:
        return "int32";
    case 0x0D:
        return "float32";
    case 0x0E:
        return "float64";
    default:
        return "unknown";
    }
}

/// True for the integer IDX types.
bool
IdxIsInteger(uint8_t typeCode)
{
    return typeCode == 0x08 || typeCode == 0x09 || typeCode == 0x0B || typeCode == 0x0C;
}

/// Header of an open IDX file.
struct IdxHeader
{
    uint8_t typeCode{0};
    std::vector<uint32_t> dims;
    std::size_t elements{0}; ///< product of dims
    std::size_t elementSize{0};
};

/// "60000x28x28"
std::string
DimsString(const std::vector<uint32_t>& dims)
{
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i)
    {
        s += (i > 0 ? "x" : "") + std::to_string(dims[i]);
    }
    return s;
}

uint32_t
LoadBigEndian32(const unsigned char* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

uint64_t
LoadBigEndian64(const unsigned char* p)
{
    return (uint64_t(LoadBigEndian32(p)) << 32) | uint64_t(LoadBigEndian32(p + 4));
}

/// Reads and checks the magic number and dimensions of an IDX file.
IdxHeader
ReadIdxHeader(GzFile& file, const std::string& path)
{
    unsigned char magic[4];
    const std::size_t got = file.Read(magic, 4);
    if (got < 4)
    {
        throw DataError("IDX file '" + path +
                        "' has a truncated header: expected 4 magic bytes, got " +
                        std::to_string(got));
    }
    if (magic[0] != 0 || magic[1] != 0)
    {
        throw DataError("IDX file '" + path +
                        "' has a wrong magic number (the first two bytes must be zero); is it an "
                        "IDX file, or a gzip file that was compressed twice?");
    }
    IdxHeader h;
    h.typeCode = magic[2];
    h.elementSize = IdxElementSize(h.typeCode);
    if (h.elementSize == 0)
    {
        char code[8];
        std::snprintf(code, sizeof(code), "0x%02X", unsigned(h.typeCode));
        throw DataError("IDX file '" + path + "' has an unknown type code " + code +
                        " (expected 0x08, 0x09, 0x0B, 0x0C, 0x0D or 0x0E)");
    }
    const unsigned ndims = magic[3];
    if (ndims == 0)
    {
        throw DataError("IDX file '" + path + "' declares zero dimensions");
    }
    std::vector<unsigned char> raw(4 * ndims);
    const std::size_t gotDims = file.Read(raw.data(), raw.size());
    if (gotDims < raw.size())
    {
        throw DataError("IDX file '" + path + "' has a truncated header: expected " +
                        std::to_string(raw.size()) + " bytes of dimension sizes for " +
                        std::to_string(ndims) + " dimensions, got " + std::to_string(gotDims));
    }
    h.dims.resize(ndims);
    h.elements = 1;
    for (unsigned i = 0; i < ndims; ++i)
    {
        h.dims[i] = LoadBigEndian32(&raw[4 * i]);
        if (h.dims[i] != 0 &&
            h.elements > std::numeric_limits<std::size_t>::max() / h.elementSize / h.dims[i])
        {
            throw DataError(
                "IDX file '" + path + "' declares impossibly large dimensions " +
                DimsString(std::vector<uint32_t>(h.dims.begin(), h.dims.begin() + i + 1)));
        }
        h.elements *= h.dims[i];
    }
    return h;
}

/**
 * Reads exactly `bytes` bytes of IDX payload. The buffer grows with the data that arrived (it
 * at most doubles per read, from 64 KiB), so a corrupt header that claims a huge size fails as
 * "truncated" after allocating about twice the file's real size, never the claimed size.
 */
std::vector<unsigned char>
ReadIdxPayload(GzFile& file, const std::string& path, const IdxHeader& h, std::size_t bytes)
{
    std::vector<unsigned char> raw;
    while (raw.size() < bytes)
    {
        const std::size_t want =
            std::min({bytes - raw.size(), READ_CHUNK, std::max(raw.size(), std::size_t(1) << 16)});
        const std::size_t old = raw.size();
        raw.resize(old + want);
        const std::size_t got = file.Read(raw.data() + old, want);
        if (got < want)
        {
            throw DataError("IDX file '" + path + "' has truncated data: expected " +
                            std::to_string(bytes) + " bytes after the header (" +
                            std::to_string(bytes / h.elementSize) + " " + IdxTypeName(h.typeCode) +
                            " values of the " + DimsString(h.dims) + " array), got " +
                            std::to_string(old + got));
        }
    }
    return raw;
}

/// Decodes `count` big-endian IDX values to T, multiplied by `scale`.
template <typename T>
void
DecodeIdx(uint8_t typeCode, const unsigned char* src, std::size_t count, double scale, T* out)
{
    switch (typeCode)
    {
    case 0x08: {
        T table[256];
        for (int v = 0; v < 256; ++v)
        {
            table[v] = static_cast<T>(v * scale);
        }
        for (std::size_t i = 0; i < count; ++i)
        {
            out[i] = table[src[i]];
        }
        break;
    }
    case 0x09:
        for (std::size_t i = 0; i < count; ++i)
        {
            out[i] = static_cast<T>(static_cast<int8_t>(src[i]) * scale);
        }
        break;
    case 0x0B:
        for (std::size_t i = 0; i < count; ++i)
        {
            const auto u = static_cast<uint16_t>((src[2 * i] << 8) | src[2 * i + 1]);
            out[i] = static_cast<T>(static_cast<int16_t>(u) * scale);
        }
        break;
    case 0x0C:
        for (std::size_t i = 0; i < count; ++i)
        {
            out[i] = static_cast<T>(static_cast<int32_t>(LoadBigEndian32(src + 4 * i)) * scale);
        }
        break;
    case 0x0D:
        for (std::size_t i = 0; i < count; ++i)
        {
            const uint32_t u = LoadBigEndian32(src + 4 * i);
            float f;
            std::memcpy(&f, &u, sizeof(f));
            out[i] = static_cast<T>(static_cast<double>(f) * scale);
        }
        break;
    case 0x0E:
        for (std::size_t i = 0; i < count; ++i)
        {
            const uint64_t u = LoadBigEndian64(src + 8 * i);
            double d;
            std::memcpy(&d, &u, sizeof(d));
            out[i] = static_cast<T>(d * scale);
        }
        break;
    default:
        break; // rejected by ReadIdxHeader
    }
}

/// Reads a whole (possibly gzip-compressed) text file.
std::string
ReadWholeFile(const std::string& path, const std::string& what)
{
    GzFile file(path, what);
    std::string text;
    std::size_t size = 0;
    for (;;)
    {
        const std::size_t want = std::size_t(1) << 20;
        text.resize(size + want);
        const std::size_t got = file.Read(&text[size], want);
        size += got;
        if (got < want)
        {
            break;
        }
    }
    text.resize(size);
    return text;
}

/// Strips spaces, tabs and carriage returns from both ends.
std::string_view
Trim(std::string_view s)
{
    const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && isSpace(s.front()))
    {
        s.remove_prefix(1);
    }
    while (!s.empty() && isSpace(s.back()))
    {
        s.remove_suffix(1);
    }
    return s;
}

/// Splits a line at `delimiter` (no quoting: the files are numeric).
void
SplitLine(std::string_view line, char delimiter, std::vector<std::string_view>& fields)
{
    fields.clear();
    std::size_t start = 0;
    for (;;)
    {
        const std::size_t pos = line.find(delimiter, start);
        if (pos == std::string_view::npos)
        {
            fields.push_back(line.substr(start));
            return;
        }
        fields.push_back(line.substr(start, pos - start));
        start = pos + 1;
    }
}

/// Throws ConfigError unless 1 <= maxClasses <= INT_MAX (numClasses is an int).
void
CheckMaxClasses(std::size_t maxClasses)
{
    if (maxClasses == 0 || maxClasses > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    {
        throw ConfigError("maxClasses",
                          "must be in [1, " + std::to_string(std::numeric_limits<int>::max()) +
                              "], got " + std::to_string(maxClasses),
                          "pass the number of classes of the data set");
    }
}

/// Throws the DataError of a class label >= maxClasses; `where` names the file and the sample.
[[noreturn]] void
ThrowClassBound(const std::string& where, double label, std::size_t maxClasses)
{
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", label);
    throw DataError(where + ": class label " + text +
                    " is not below maxClasses = " + std::to_string(maxClasses) +
                    " (a corrupt label file? if the data set really has more classes, raise "
                    "maxClasses)");
}

} // namespace

IdxArray
ReadIdx(const std::string& path)
{
    GzFile file(path, "IDX file");
    const IdxHeader h = ReadIdxHeader(file, path);
    const std::vector<unsigned char> raw =
        ReadIdxPayload(file, path, h, h.elements * h.elementSize);
    IdxArray out;
    out.typeCode = h.typeCode;
    out.dims = h.dims;
    out.values.resize(h.elements);
    DecodeIdx(h.typeCode, raw.data(), h.elements, 1.0, out.values.data());
    return out;
}

template <typename S>
Dataset<S>
ReadIdxDataset(const std::string& imagesPath,
               const std::string& labelsPath,
               std::size_t maxSamples,
               double pixelScale,
               std::size_t maxClasses)
{
    CheckMaxClasses(maxClasses);
    if (!std::isfinite(pixelScale))
    {
        throw ConfigError("pixelScale",
                          "must be finite, got " + std::to_string(pixelScale),
                          "pass e.g. 1/255 to map bytes to [0, 1]");
    }
    GzFile imageFile(imagesPath, "IDX image file");
    const IdxHeader ih = ReadIdxHeader(imageFile, imagesPath);
    GzFile labelFile(labelsPath, "IDX label file");
    const IdxHeader lh = ReadIdxHeader(labelFile, labelsPath);

    if (ih.dims.size() < 2)
    {
        throw DataError("IDX image file '" + imagesPath + "' has dimensions " +
                        DimsString(ih.dims) + "; expected samples x rows x cols");
    }
    if (lh.dims.size() != 1 || !IdxIsInteger(lh.typeCode))
    {
        throw DataError("IDX label file '" + labelsPath + "' holds " + DimsString(lh.dims) + " " +
                        IdxTypeName(lh.typeCode) +
                        " values; expected a one-dimensional array of integer labels");
    }
    if (ih.dims[0] != lh.dims[0])
    {
        throw DataError("IDX image file '" + imagesPath + "' has " + std::to_string(ih.dims[0]) +
                        " samples but label file '" + labelsPath + "' has " +
                        std::to_string(lh.dims[0]) + " labels");
    }

    std::size_t n = ih.dims[0];
    if (maxSamples > 0)
    {
        n = std::min(n, maxSamples);
    }
    const std::size_t dim = ih.dims[0] > 0 ? ih.elements / ih.dims[0] : 0;
    if (dim == 0)
    {
        throw DataError("IDX image file '" + imagesPath + "' has dimensions " +
                        DimsString(ih.dims) + " with an empty image");
    }

    // Only the first n samples are read (both files store samples outermost).
    const std::vector<unsigned char> rawLabels =
        ReadIdxPayload(labelFile, labelsPath, lh, n * lh.elementSize);
    const std::vector<unsigned char> rawImages =
        ReadIdxPayload(imageFile, imagesPath, ih, n * dim * ih.elementSize);

    Dataset<S> out;
    out.kind = TargetKind::Categorical;
    out.targets.resize(static_cast<Eigen::Index>(n));
    std::vector<double> labels(n);
    DecodeIdx(lh.typeCode, rawLabels.data(), n, 1.0, labels.data());
    double maxLabel = -1.0;
    for (std::size_t i = 0; i < n; ++i)
    {
        if (labels[i] < 0)
        {
            throw DataError("IDX label file '" + labelsPath + "' has a negative label " +
                            std::to_string(static_cast<long long>(labels[i])) + " at sample " +
                            std::to_string(i));
        }
        if (labels[i] >= static_cast<double>(maxClasses))
        {
            ThrowClassBound("IDX label file '" + labelsPath + "' sample " + std::to_string(i),
                            labels[i],
                            maxClasses);
        }
        maxLabel = std::max(maxLabel, labels[i]);
        out.targets[static_cast<Eigen::Index>(i)] = static_cast<S>(labels[i]);
    }
    out.numClasses = static_cast<int>(maxLabel) + 1;

    out.features.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(dim));
    DecodeIdx(ih.typeCode, rawImages.data(), n * dim, pixelScale, out.features.data());
    return out;
}

template <typename S>
Dataset<S>
ReadCsvDataset(const std::string& path, const CsvOptions& options, CsvLayout* layout)
{
    if (options.delimiter == '\n' || options.delimiter == '\r' || options.delimiter == '\0')
    {
        throw ConfigError("delimiter",
                          "a line break or NUL cannot separate fields",
                          "use e.g. ',' ';' or '\\t'");
    }
    if (options.kind == TargetKind::Categorical)
    {
        CheckMaxClasses(options.maxClasses);
    }
    const std::string text = ReadWholeFile(path, "CSV file");
    const std::string_view all(text);
    const std::string where = "CSV file '" + path + "'";

    std::vector<std::string_view> fields;
    std::vector<double> features;
    std::vector<double> targets;
    std::size_t expectedFields = 0;   // 0 until the header or first data row is seen
    std::size_t expectedFromLine = 0; // line that fixed expectedFields
    std::size_t targetIndex = 0;
    bool headerPending = options.header != CsvHeader::Absent;
    CsvLayout found;
    std::size_t lineNo = 0;
    std::size_t pos = 0;

    const auto fixFieldCount = [&](std::size_t count, std::size_t line) {
        if (count < 2)
        {
            throw DataError(where + " line " + std::to_string(line) + " has " +
                            std::to_string(count) +
                            " field(s); need at least one feature and one target (is the "
                            "delimiter '" +
                            std::string(1, options.delimiter) + "' right?)");
        }
        expectedFields = count;
        expectedFromLine = line;
        const long long c = options.targetColumn;
        const long long nf = static_cast<long long>(count);
        if (c >= nf || c < -nf)
        {
            throw ConfigError("targetColumn",
                              "column " + std::to_string(c) + " does not exist in " + where +
                                  ", which has " + std::to_string(count) + " columns",
                              "pass a column in [" + std::to_string(-nf) + ", " +
                                  std::to_string(nf - 1) + "] (-1 is the last column)");
        }
        targetIndex = static_cast<std::size_t>(c >= 0 ? c : nf + c);
    };

    while (pos < all.size())
    {
        std::size_t end = all.find('\n', pos);
        if (end == std::string_view::npos)
        {
            end = all.size();
        }
        const std::string_view line = all.substr(pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (Trim(line).empty())
        {
            continue; // blank lines (e.g. at the end of the file) are ignored
        }
        SplitLine(line, options.delimiter, fields);
        if (headerPending)
        {
            headerPending = false;
            bool names = options.header == CsvHeader::Present;
            for (std::size_t col = 0; col < fields.size() && !names; ++col)
            {
                // Auto: a header if a field is not a number (as the parser below reads one)
                std::string_view f = Trim(fields[col]);
                if (f.size() > 1 && f.front() == '+')
                {
                    f.remove_prefix(1);
                }
                double value = 0.0;
                const auto res = std::from_chars(f.data(), f.data() + f.size(), value);
                names = f.empty() || res.ptr != f.data() + f.size() ||
                        (res.ec != std::errc() && res.ec != std::errc::result_out_of_range);
            }
            if (names)
            {
                fixFieldCount(fields.size(), lineNo);
                found.headerLine = true;
                found.header = std::string(Trim(line));
                continue;
            }
        }
        if (expectedFields == 0)
        {
            fixFieldCount(fields.size(), lineNo);
        }
        if (fields.size() != expectedFields)
        {
            throw DataError(where + " line " + std::to_string(lineNo) + " has " +
                            std::to_string(fields.size()) + " fields, expected " +
                            std::to_string(expectedFields) + " (as on line " +
                            std::to_string(expectedFromLine) + ")");
        }
        for (std::size_t col = 0; col < fields.size(); ++col)
        {
            std::string_view f = Trim(fields[col]);
            const std::string context =
                where + " line " + std::to_string(lineNo) + " column " + std::to_string(col + 1);
            if (f.empty())
            {
                throw DataError(context + " is empty");
            }
            std::string_view number = f;
            if (number.size() > 1 && number.front() == '+')
            {
                number.remove_prefix(1);
            }
            double value = 0.0;
            const auto res = std::from_chars(number.data(), number.data() + number.size(), value);
            if (res.ec == std::errc::result_out_of_range)
            {
                throw DataError(context + ": value '" + std::string(f) + "' is out of range");
            }
            if (res.ec != std::errc() || res.ptr != number.data() + number.size())
            {
                throw DataError(context + ": '" + std::string(f) + "' is not a number");
            }
            if (!std::isfinite(value))
            {
                throw DataError(context + ": value '" + std::string(f) + "' is not finite");
            }
            if (col != targetIndex)
            {
                features.push_back(value);
                continue;
            }
            switch (options.kind)
            {
            case TargetKind::Regression:
                break;
            case TargetKind::BinarySigned:
                if (value == 0.0)
                {
                    value = -1.0;
                }
                else if (value != 1.0 && value != -1.0)
                {
                    throw DataError(context + ": binary label '" + std::string(f) +
                                    "' is not -1/+1 or 0/1");
                }
                break;
            case TargetKind::Categorical:
                if (value < 0 || value != std::floor(value))
                {
                    throw DataError(context + ": class label '" + std::string(f) +
                                    "' is not an integer 0..C-1");
                }
                if (value >= static_cast<double>(options.maxClasses))
                {
                    ThrowClassBound(context, value, options.maxClasses);
                }
                break;
            }
            targets.push_back(value);
        }
        found.lines.push_back(lineNo);
    }
    if (targets.empty())
    {
        throw DataError(where + " has no data rows");
    }
    if (layout)
    {
        *layout = std::move(found);
    }

    Dataset<S> out;
    out.kind = options.kind;
    const auto n = static_cast<Eigen::Index>(targets.size());
    const auto d = static_cast<Eigen::Index>(expectedFields - 1);
    out.features = Eigen::Map<const Mat<double>>(features.data(), n, d).template cast<S>();
    out.targets = Eigen::Map<const Vec<double>>(targets.data(), n).template cast<S>();
    if (options.kind == TargetKind::Categorical)
    {
        out.numClasses = static_cast<int>(*std::max_element(targets.begin(), targets.end())) + 1;
    }
    else if (options.kind == TargetKind::BinarySigned)
    {
        out.numClasses = 2;
    }
    return out;
}

std::string
FindFashionMnistDirectory()
{
    const auto hasData = [](const std::string& dir) {
        std::error_code ec;
        return std::filesystem::is_regular_file(std::filesystem::path(dir) /
                                                    "train-images-idx3-ubyte.gz",
                                                ec);
    };
    const char* env = std::getenv("FL_FASHION_MNIST_DIR");
    if (env != nullptr && *env != '\0' && hasData(env))
    {
        return env;
    }
    const std::string debian = "/usr/share/datasets/fashion-mnist";
    if (hasData(debian))
    {
        return debian;
    }
    return "";
}

#define FL_INSTANTIATE_DATA_IO(S)                                                                  \
    template Dataset<S> ReadIdxDataset<S>(const std::string&,                                      \
                                          const std::string&,                                      \
                                          std::size_t,                                             \
                                          double,                                                  \
                                          std::size_t);                                            \
    template Dataset<S> ReadCsvDataset<S>(const std::string&, const CsvOptions&, CsvLayout*);

FL_INSTANTIATE_DATA_IO(double)
FL_INSTANTIATE_DATA_IO(float)

} // namespace fl
} // namespace ns3
