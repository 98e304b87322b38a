/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A model-message connection over an ns-3 stream socket (TCP): sends encoded messages with
 * flow control and reassembles received bytes into messages.
 */
#ifndef FL_MESSAGE_SOCKET_H
#define FL_MESSAGE_SOCKET_H

#include "ns3/callback.h"
#include "ns3/message-reassembler.h"
#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"
#include "ns3/socket.h"

#include <deque>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl-apps
 * One end of a model-message connection.
 *
 * Send() queues an encoded message (shared, so one encoding can go to many peers) and writes
 * as much as the socket's send buffer takes, continuing from the socket's send callback.
 * Received bytes go through an fl::MessageReassembler bounded by maxMessageBytes; every complete
 * valid message is handed to the receive callback, malformed bytes are counted there and never
 * delivered. A header that fails (a forged or corrupted length, an older sender's wire version,
 * a message above the bound) ends the stream, which cannot be re-synchronised: the connection is
 * closed at once (ns-3's TCP resets it if unread data is left), nothing more of it is buffered,
 * and the stream-error callback is called once.
 */
class FlMessageSocket : public SimpleRefCount<FlMessageSocket>
{
  public:
    /// Called for each complete message (the receiver may move from it).
    using ReceiveCallback = Callback<void, Ptr<FlMessageSocket>, fl::ReceivedMessage&>;
    /// Called once when a malformed header ended the stream (the connection is closed already).
    using StreamErrorCallback = Callback<void, Ptr<FlMessageSocket>>;

    /**
     * @param socket a connected (or accepted) stream socket
     * @param decodeTo precision of decoded parameter vectors
     * @param maxMessageBytes largest incoming message (header and payload); a header declaring
     *        more ends the stream. Pass the model bound (FlMaxModelMessageBytes of the task).
     */
    FlMessageSocket(Ptr<Socket> socket,
                    fl::Precision decodeTo,
                    uint32_t maxMessageBytes = fl::kDefaultMaxMessageBytes);
    ~FlMessageSocket();

    /// Sets the callback that receives complete messages.
    void SetReceiveCallback(ReceiveCallback cb);

    /// Sets the callback told when a malformed header ended the stream.
    void SetStreamErrorCallback(StreamErrorCallback cb);

    /// Queues an encoded message for sending.
    void Send(std::shared_ptr<const std::vector<uint8_t>> bytes);

    /// Closes the socket and drops pending data.
    void Close();
    /// Drops pending data and stops using the socket without closing it (nothing is sent).
    void Detach();

    /// The underlying socket.
    Ptr<Socket> GetSocket() const
    {
        return m_socket;
    }

    /// Bytes handed to the socket so far.
    uint64_t BytesSent() const
    {
        return m_bytesSent;
    }

    /// Bytes received from the socket so far.
    uint64_t BytesReceived() const
    {
        return m_bytesReceived;
    }

    /// Bytes queued but not yet accepted by the socket.
    uint64_t BytesPending() const;

    /// Reassembly counters (malformed headers, CRC errors, bytes held at most, ...).
    const fl::ReassemblerStats& RxStats() const
    {
        return m_reassembler.Stats();
    }

    /// True if a malformed header ended the stream (the connection was closed then).
    bool StreamFailed() const
    {
        return m_reassembler.Failed();
    }

    /// Bytes received but not yet delivered (a message in progress).
    std::size_t RxBuffered() const
    {
        return m_reassembler.Buffered();
    }

    /// Peer identifier set by the application (e.g. client index), or -1.
    int64_t peerId{-1};

  private:
    void TrySend(Ptr<Socket> socket, uint32_t available);
    void HandleRead(Ptr<Socket> socket);
    /// Delivers every complete message; false if the connection was closed meanwhile.
    bool Deliver();

    Ptr<Socket> m_socket;
    fl::MessageReassembler m_reassembler;
    ReceiveCallback m_receive;
    StreamErrorCallback m_streamError;
    std::deque<std::shared_ptr<const std::vector<uint8_t>>> m_txQueue;
    std::size_t m_txOffset{0};
    uint64_t m_bytesSent{0};
    uint64_t m_bytesReceived{0};
    std::vector<uint8_t> m_rxScratch;
    bool m_closed{false};
};

} // namespace ns3

#endif // FL_MESSAGE_SOCKET_H
