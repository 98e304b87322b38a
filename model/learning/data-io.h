/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Readers for data files: IDX (MNIST format, plain or gzip) and CSV.
 */
#ifndef FL_DATA_IO_H
#define FL_DATA_IO_H

#include "ns3/dataset.h"

#include <string>
#include <vector>

namespace ns3
{
namespace fl
{

/// An IDX array: dimensions and raw values converted to double.
struct IdxArray
{
    uint8_t typeCode{0}; ///< 0x08 ubyte, 0x09 byte, 0x0B short, 0x0C int, 0x0D float, 0x0E double
    std::vector<uint32_t> dims; ///< dimension sizes, outermost first
    std::vector<double> values; ///< product(dims) values in row-major order
};

/**
 * Reads an IDX file (http://yann.lecun.com/exdb/mnist/ format), plain or gzip-compressed
 * (detected from the content, not the name). Throws DataError naming the file on a missing
 * file, wrong magic number, unknown type code, or truncated data.
 */
IdxArray ReadIdx(const std::string& path);

/**
 * Most classes a data file may declare unless the caller raises the bound: class labels are
 * 0 .. maxClasses-1. The bound keeps a corrupt label (say 10^8) from building a model of
 * billions of parameters.
 */
constexpr std::size_t kDefaultMaxClasses = 1000;

/**
 * Reads an IDX image file and its label file into a Categorical data set.
 * Pixels are scaled by `pixelScale` (1/255 maps ubyte images to [0, 1]).
 * @param maxSamples read at most this many samples (0 = all)
 * @param maxClasses labels must lie in 0 .. maxClasses-1 (1 <= maxClasses <= INT_MAX);
 *        a larger label is a DataError naming the file, the sample and this bound
 */
template <typename S>
Dataset<S> ReadIdxDataset(const std::string& imagesPath,
                          const std::string& labelsPath,
                          std::size_t maxSamples = 0,
                          double pixelScale = 1.0 / 255.0,
                          std::size_t maxClasses = kDefaultMaxClasses);

/// Whether the first line of a CSV file holds column names.
enum class CsvHeader
{
    Auto,    ///< a header if one of its fields is not a number; a line of numbers is data
    Present, ///< always a header (skipped)
    Absent,  ///< never: every line is data
};

/// Options of the CSV reader.
struct CsvOptions
{
    char delimiter{','};               ///< field separator
    CsvHeader header{CsvHeader::Auto}; ///< does the first line hold column names?
    int targetColumn{-1};              ///< column of the target; negative counts from the end
    TargetKind kind{TargetKind::Categorical};   ///< how targets are interpreted
    std::size_t maxClasses{kDefaultMaxClasses}; ///< Categorical labels lie in 0..maxClasses-1
};

/// What ReadCsvDataset found besides the data (optional).
struct CsvLayout
{
    bool headerLine{false};         ///< the first non-blank line was taken as column names
    std::string header;             ///< that line (empty without one)
    std::vector<std::size_t> lines; ///< line number (from 1) of each data row
};

/**
 * Reads a numeric CSV file (plain or gzip). Every row must have the same number of fields.
 * The first non-blank line is a header as options.header says (CsvHeader::Auto: if one of its
 * fields is not a number). Categorical targets must be integers 0..C-1 with C <=
 * options.maxClasses (numClasses = max + 1; NormaliseClassLabels, data-checks.h, checks that
 * every class occurs); BinarySigned accepts {-1, +1} or {0, 1} (0 is mapped to -1). Throws DataError naming
 * file, line and column. `layout`, if given, receives the header and each row's line.
 */
template <typename S>
Dataset<S> ReadCsvDataset(const std::string& path,
                          const CsvOptions& options = CsvOptions(),
                          CsvLayout* layout = nullptr);

/// Path of Debian's dataset-fashion-mnist files (directory), or empty if not installed.
std::string FindFashionMnistDirectory();

} // namespace fl
} // namespace ns3

#endif // FL_DATA_IO_H
