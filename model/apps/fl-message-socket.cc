/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fl-message-socket.h"

#include "ns3/log.h"
#include "ns3/packet.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlMessageSocket");

FlMessageSocket::FlMessageSocket(Ptr<Socket> socket,
                                 fl::Precision decodeTo,
                                 uint32_t maxMessageBytes)
    : m_socket(socket),
      m_reassembler(decodeTo, maxMessageBytes)
{
    NS_LOG_FUNCTION(this << socket);
    m_socket->SetSendCallback(MakeCallback(&FlMessageSocket::TrySend, this));
    m_socket->SetRecvCallback(MakeCallback(&FlMessageSocket::HandleRead, this));
}

FlMessageSocket::~FlMessageSocket()
{
    NS_LOG_FUNCTION(this);
}

void
FlMessageSocket::SetReceiveCallback(ReceiveCallback cb)
{
    m_receive = cb;
}

void
FlMessageSocket::SetStreamErrorCallback(StreamErrorCallback cb)
{
    m_streamError = cb;
}

uint64_t
FlMessageSocket::BytesPending() const
{
    uint64_t n = 0;
    for (const auto& b : m_txQueue)
    {
        n += b->size();
    }
    return n - m_txOffset;
}

void
FlMessageSocket::Send(std::shared_ptr<const std::vector<uint8_t>> bytes)
{
    NS_LOG_FUNCTION(this << bytes->size());
    if (m_closed || bytes->empty())
    {
        return;
    }
    m_txQueue.push_back(std::move(bytes));
    TrySend(m_socket, m_socket->GetTxAvailable());
}

void
FlMessageSocket::TrySend(Ptr<Socket> socket, uint32_t /* available */)
{
    while (!m_closed && !m_txQueue.empty())
    {
        const auto& buf = *m_txQueue.front();
        const uint32_t avail = socket->GetTxAvailable();
        if (avail == 0)
        {
            return; // resumed by the send callback when the buffer drains
        }
        const std::size_t left = buf.size() - m_txOffset;
        const auto n = static_cast<uint32_t>(std::min<std::size_t>(left, avail));
        Ptr<Packet> p = Create<Packet>(buf.data() + m_txOffset, n);
        const int sent = socket->Send(p);
        if (sent <= 0)
        {
            NS_LOG_LOGIC("socket refused " << n << " bytes; waiting for the send callback");
            return;
        }
        m_txOffset += static_cast<std::size_t>(sent);
        m_bytesSent += static_cast<uint64_t>(sent);
        if (m_txOffset == buf.size())
        {
            m_txQueue.pop_front();
            m_txOffset = 0;
        }
    }
}

bool
FlMessageSocket::Deliver()
{
    fl::ReceivedMessage msg;
    while (!m_closed && m_reassembler.Pop(msg))
    {
        if (!m_receive.IsNull())
        {
            m_receive(Ptr<FlMessageSocket>(this), msg);
        }
    }
    return !m_closed;
}

void
FlMessageSocket::HandleRead(Ptr<Socket> socket)
{
    // Hold a reference: a callback may drop the last one (e.g. close this connection).
    Ptr<FlMessageSocket> self(this);
    Ptr<Packet> packet;
    // Messages are taken off after every read, so that at most one message in progress and one
    // read are held, and a failed header stops the reading at once.
    while (!m_closed && (packet = socket->Recv()))
    {
        const uint32_t size = packet->GetSize();
        if (size == 0)
        {
            break;
        }
        if (m_rxScratch.size() < size)
        {
            m_rxScratch.resize(size);
        }
        packet->CopyData(m_rxScratch.data(), size);
        m_bytesReceived += size;
        m_reassembler.Push(m_rxScratch.data(), size);
        if (!Deliver())
        {
            return;
        }
        if (m_reassembler.Failed())
        {
            NS_LOG_WARN("malformed message header on a stream ("
                        << fl::HeaderStatusName(m_reassembler.FailureStatus())
                        << "): closing the connection");
            Close();
            if (!m_streamError.IsNull())
            {
                m_streamError(self);
            }
            return;
        }
    }
}

void
FlMessageSocket::Close()
{
    NS_LOG_FUNCTION(this);
    if (m_closed)
    {
        return;
    }
    Detach();
    m_socket->Close();
}

void
FlMessageSocket::Detach()
{
    m_closed = true;
    m_txQueue.clear();
    m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    m_socket->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
}

} // namespace ns3
