/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlClientApplication: its membership of a server (the Join and its repeats and checks, a
 * hand-over to another server, joining the same server again, leaving for good).
 */
#include "ns3/fl-client-application.h"
#include "ns3/fl-transport.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

/// The client's log component (NS_LOG=FlClientApplication), defined in fl-client-application.cc.
LogComponent& FlClientApplicationLog();

namespace
{
LogComponent& g_log = FlClientApplicationLog();
} // namespace

void
FlClientApplication::SwitchServer(Ipv4Address server)
{
    NS_LOG_FUNCTION(this << server);
    if (m_left || m_stopped || server == GetServerAddress())
    {
        return;
    }
    if (m_uplink)
    {
        fl::ExitOnConfigError(
            "FlClientApplication",
            fl::ConfigError("SwitchServer",
                            "a hand-over of client " + std::to_string(m_clientIndex) +
                                " with an uplink step",
                            "an uplink step's protocol state belongs to one server; hand "
                            "clients over without one (e.g. without secure aggregation)"));
    }
    m_serverAddress = server;
    ++m_serverChanges;
    if (!m_started)
    {
        return; // StartApplication joins it
    }
    NS_LOG_INFO("client " << m_clientIndex << " hands over to " << server << " at "
                          << Simulator::Now().As(Time::S));
    // the Join goes on a new connection: one left open to either server may be dead at the
    // server's end (a server that gave up on the client while it was away)
    m_transport->ClosePeer(m_server);
    m_server = InetSocketAddress(server, m_serverPort);
    m_serverNode = fl::kBroadcastId;
    m_serverStopped = false;
    m_lastGlobal = fl::ParamVector(); // no base for the holes of another server's models
    JoinAgain();
}

void
FlClientApplication::Rejoin()
{
    NS_LOG_FUNCTION(this);
    if (m_left || m_stopped || !m_started || m_serverStopped)
    {
        return;
    }
    NS_LOG_INFO("client " << m_clientIndex << " joins its server again at "
                          << Simulator::Now().As(Time::S));
    ++m_rejoins;
    JoinAgain();
}

void
FlClientApplication::JoinAgain()
{
    // what was owed to the server is dropped (its round went on without it)
    Simulator::Cancel(m_sendEvent);
    DiscardTraining();
    Simulator::Cancel(m_joinEvent);
    m_transport->ClosePeer(m_server);
    m_heardFromServer = false;
    m_hasModel = false;
    m_resentThisRound = 0;
    SendJoin();
}

uint32_t
FlClientApplication::GetRejoins() const
{
    return m_rejoins;
}

uint32_t
FlClientApplication::GetServerChanges() const
{
    return m_serverChanges;
}

Ipv4Address
FlClientApplication::GetServerAddress() const
{
    return Ipv4Address::IsMatchingType(m_serverAddress) ? Ipv4Address::ConvertFrom(m_serverAddress)
                                                        : Ipv4Address();
}

void
FlClientApplication::Leave()
{
    NS_LOG_FUNCTION(this);
    NS_LOG_INFO("client " << m_clientIndex << " leaves at " << Simulator::Now().As(Time::S));
    m_left = true;
    Simulator::Cancel(m_sendEvent);
    DiscardTraining();
    Simulator::Cancel(m_joinEvent);
    if (m_uplink)
    {
        m_uplink->Stop();
    }
    // A stream peer sees the connection close; over UDP the server's deadline decides.
    m_transport->Close();
}

void
FlClientApplication::SendJoin()
{
    if (m_left || m_stopped)
    {
        return;
    }
    // with an uplink step the client announces no sample count: the step owns what it reveals
    const auto samples =
        m_uplink ? 0u : static_cast<uint32_t>(m_task->ClientSamples(m_clientIndex));
    const std::vector<uint8_t> payload = fl::PackU32({m_clientIndex});
    m_transport->SendRaw(m_server, {fl::MessageKind::Join, 0, 0, m_serverNode, samples}, payload);
    if (!m_transport->IsReliable() && !m_heardFromServer)
    {
        m_joinEvent = Simulator::Schedule(m_joinInterval, &FlClientApplication::SendJoin, this);
    }
    else if (!m_heardFromServer)
    {
        m_joinFailures = m_transport->Stats().connectFailures;
        m_joinEvent = Simulator::Schedule(m_joinInterval, &FlClientApplication::CheckJoin, this);
    }
}

void
FlClientApplication::CheckJoin()
{
    if (m_left || m_stopped || m_heardFromServer)
    {
        return;
    }
    if (m_transport->Stats().connectFailures > m_joinFailures)
    {
        SendJoin(); // the connection that carried the Join failed: a new one
        return;
    }
    m_joinEvent = Simulator::Schedule(m_joinInterval, &FlClientApplication::CheckJoin, this);
}

} // namespace ns3
