/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Fuzz entry points of the module's decoders. Each one takes arbitrary bytes, feeds them to a
 * decoder the way a receiver would, and checks what the decoder promises (nothing malformed is
 * delivered, what is delivered re-encodes to the same bytes, bookkeeping stays bounded). A
 * broken promise throws FuzzInvariantError; a crash, an out-of-bounds access or undefined
 * behaviour is left to the sanitizers. The same functions serve the libFuzzer binaries
 * (fl-fuzz-main.cc, built by utils/fuzz.sh) and the GoogleTest replay of the seed corpus
 * (test/unit/net/test-fuzz-corpus.cc), so CI exercises them without clang.
 *
 * Input formats (the corpus under fuzz/corpus/<name>/ follows them):
 *  - a leading "fix" byte: when its bit 0 is set the harness rewrites the CRC fields before
 *    decoding (for a model message both: the message CRC, then the header CRC over it), so that
 *    mutations reach the code behind the CRC checks.
 *  - several datagrams in one input: records of a 2-byte little-endian length, then the bytes.
 */
#ifndef FL_FUZZ_TARGETS_H
#define FL_FUZZ_TARGETS_H

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{
namespace fl
{
namespace fuzz
{

/// A decoder broke one of its documented promises on some input.
class FuzzInvariantError : public std::logic_error
{
  public:
    /// @param what the broken promise
    explicit FuzzInvariantError(const std::string& what)
        : std::logic_error("fuzz invariant broken: " + what)
    {
    }
};

/// Signature of a fuzz entry point (that of LLVMFuzzerTestOneInput); returns 0.
using FuzzEntry = int (*)(const uint8_t* data, std::size_t size);

/// A harness: its name (also its corpus folder, fuzz/corpus/<name>) and its entry point.
struct FuzzHarness
{
    const char* name; ///< harness name
    FuzzEntry entry;  ///< entry point
};

/// Every harness, one per decoder.
const std::vector<FuzzHarness>& Harnesses();

/**
 * Model message header and whole-message decode (ParseHeader, DecodeWholeMessage).
 * Input: fix byte, then the message. A message that decodes re-encodes to the same bytes.
 */
int FuzzModelMessage(const uint8_t* data, std::size_t size);

/**
 * Stream reassembly (MessageReassembler). Input: one byte choosing the piece size (1..256), a
 * mode byte, then the stream, pushed piece by piece and popped after every push. With mode bit
 * 0 set the stream is given as records, each a message whose two CRCs the harness rewrites. The
 * reassembler holds at most one message and one push, nothing after a failed header, and
 * accounts for every byte.
 */
int FuzzStreamReassembler(const uint8_t* data, std::size_t size);

/**
 * Chunk reassembly (ChunkReassembler, ParseChunk). Input: fix byte, then datagram records;
 * between datagrams the harness takes a snapshot of every open message and asks for its missing
 * chunks and received ranges, and finally expires them all. Every partial message is sized by
 * what arrived (packed bytes, bounded range lists), follows the chunk count rule, and decodes
 * packed exactly as from a buffer with holes (DecodePackedPartialMessage against
 * DecodePartialMessage).
 */
int FuzzChunkReassembler(const uint8_t* data, std::size_t size);

/**
 * ACK/NACK feedback (ParseFeedback). Input: fix byte, then one datagram. A datagram that
 * parses re-encodes to the same bytes.
 */
int FuzzFeedback(const uint8_t* data, std::size_t size);

/**
 * Partial decode (DecodePartialMessage, DecodePackedPartialMessage, coordinate ranges). Input:
 * fix byte (bit 0: rewrite both CRCs), a byte holding the number of received ranges n (mod 16)
 * and the previous vector's precision (bit 4), n ranges of a 2-byte begin and a 2-byte length,
 * then the message. The packed decode of the received ranges equals the decode from the
 * buffer; with every byte received, the result equals DecodeWholeMessage's.
 */
int FuzzPartialDecode(const uint8_t* data, std::size_t size);

/**
 * Raw (control) payloads (UnpackU32, UnpackF64). Input: the payload. What unpacks packs back
 * to the same bytes.
 */
int FuzzRawPayload(const uint8_t* data, std::size_t size);

/**
 * IDX reader (ReadIdx, ReadIdxDataset). Input: a 2-byte length m, m bytes of image file, then
 * the label file (each plain or gzip). Errors must be DataError; a data set read has labels
 * below its class count and numClasses <= kDefaultMaxClasses.
 */
int FuzzIdxReader(const uint8_t* data, std::size_t size);

/**
 * Number and list parser (text-parse.h). Input: the text. Errors must be ConfigError; values
 * returned are in range, lists non-empty, bounded and trimmed.
 */
int FuzzTextParse(const uint8_t* data, std::size_t size);

/**
 * EGA codec file (EgaMlpCodec::Deserialize, format FLEGACOD). Input: fix byte (bit 0: rewrite
 * the trailing CRC-32), then the file image. Errors
 * must be DataError; a codec that loads has consistent shapes, and encodes and decodes a block
 * to the declared sizes.
 */
int FuzzEgaCodecFile(const uint8_t* data, std::size_t size);

/**
 * Uplink-codec payloads (UplinkRoundParams::Unpack, UnpackUplinkReport, EgaUnpackCodes).
 * Input: one byte h (1..16 = 1 + byte mod 16), then the payload. Codes are accepted exactly
 * when the size is 4 h K for K >= 1 and every value is finite, and pack back to the same bytes;
 * accepted control payloads pack back to the same bytes.
 */
int FuzzUplinkPayload(const uint8_t* data, std::size_t size);

/**
 * Secure-aggregation messages a server parses (secagg-wire.h: ParseSecAggAdvertiseKeys,
 * ParseSecAggEncryptedShares, ParseSecAggMaskedInput, ParseSecAggConsistencySignature,
 * ParseSecAggUnmaskShares). Input: one byte choosing the parser (mod 5), one byte giving the
 * expected number of masked words (MaskedInput only; 0..255), then the message. An accepted
 * message has the header PeekSecAggHeader reads, ascending lists, counts that match its size,
 * share values below p and x = sender + 1, and packs back to the same bytes.
 */
int FuzzSecAggServerWire(const uint8_t* data, std::size_t size);

/**
 * Secure-aggregation messages a client parses (ParseSecAggKeyList, ParseSecAggForwardedShares,
 * ParseSecAggSurvivorList, ParseSecAggSignatureList, ParseSecAggRoundSetup). Input: one byte
 * choosing the parser (mod 5), then the message. Accepted messages keep the same promises as
 * above.
 */
int FuzzSecAggClientWire(const uint8_t* data, std::size_t size);

/**
 * The model reports ranks gather to rank 0 (UnpackModelReports): bytes mapped to mostly small
 * whole numbers; an accepted array packs back to itself (PackModelReports), value for value.
 */
int FuzzModelReports(const uint8_t* data, std::size_t size);

/**
 * A hello of neighbour discovery (UnpackHello): an accepted hello packs back to the same bytes,
 * lists at most kMaxHelloNeighbours ascending ids without its sender and a degree at most that
 * count; a neighbour table that hears it counts the sender as a neighbour only if the hello
 * lists the table's node, and forgets it after the timeout.
 */
int FuzzHello(const uint8_t* data, std::size_t size);

} // namespace fuzz
} // namespace fl
} // namespace ns3

#endif // FL_FUZZ_TARGETS_H
