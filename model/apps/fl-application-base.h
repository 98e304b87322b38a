/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the FL server and client applications share: the transport (TCP or UDP with chunking)
 * and its settings, the wire encoding of models.
 */
#ifndef FL_APPLICATION_BASE_H
#define FL_APPLICATION_BASE_H

#include "ns3/application.h"
#include "ns3/data-rate.h"
#include "ns3/fl-datagram-endpoint.h"
#include "ns3/nstime.h"
#include "ns3/payload-codec.h"

#include <string>

namespace ns3
{

/**
 * \ingroup fl
 * Transport of model messages.
 */
enum class FlTransport : uint8_t
{
    Tcp = 0, ///< one TCP connection per client (reliable, flow-controlled)
    Udp = 1, ///< UDP datagrams: messages split into chunks, holes handled by a policy
};

/**
 * \ingroup fl
 * Base of FlServerApplication and FlClientApplication: the transport attributes. Set them to
 * the same values on the server and its clients (FlServerHelper / FlClientHelper, or
 * Config::SetDefault on "ns3::FlApplicationBase::...").
 */
class FlApplicationBase : public Application
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    FlApplicationBase();
    ~FlApplicationBase() override;

    /// The transport in use (valid once started).
    FlTransport GetTransport() const
    {
        return m_transport;
    }

  protected:
    /**
     * Parses the transport attributes (Transport, WirePrecision, HolePolicy, the UDP settings);
     * stops the simulation with NS_FATAL_ERROR naming the attribute if one is invalid. Call it
     * first in StartApplication.
     * @param who the class name for error messages
     */
    void ParseTransportAttributes(const char* who);

    /// The datagram settings from the attributes (valid after ParseTransportAttributes).
    const FlDatagramConfig& DatagramConfig() const
    {
        return m_datagramConfig;
    }

    fl::WireEncoding m_wire{fl::WireEncoding::Float64}; ///< parsed WirePrecision
    FlTransport m_transport{FlTransport::Tcp};          ///< parsed Transport
    uint32_t m_tcpSegmentSize{1448};                    ///< TcpSegmentSize attribute

  private:
    std::string m_transportName;
    std::string m_wirePrecision;
    std::string m_holePolicy;
    uint32_t m_udpMtu{1500};
    DataRate m_pacingRate;
    Time m_reassemblyTimeout;
    Time m_ackTimeout;
    uint32_t m_retryLimit{5};
    FlDatagramConfig m_datagramConfig;
};

} // namespace ns3

#endif // FL_APPLICATION_BASE_H
