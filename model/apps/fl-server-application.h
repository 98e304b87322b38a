/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The FedAvg server: a thin ns-3 Application that schedules synchronous rounds.
 */
#ifndef FL_SERVER_APPLICATION_H
#define FL_SERVER_APPLICATION_H

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/fl-message-socket.h"
#include "ns3/learning-task.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <map>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup fl
 * What happened in one round, as reported by FlServerApplication's "RoundEnd" trace.
 */
struct FlRoundReport
{
    uint32_t round{0};                  ///< round number (0 = the initial model, at start)
    Time start;                         ///< when the global model was sent
    Time end;                           ///< when the aggregate was formed
    std::vector<uint32_t> selected;     ///< clients the model was sent to (and still connected)
    std::vector<uint32_t> participants; ///< clients whose update was aggregated (sorted)
    uint64_t bytesDown{0};              ///< bytes the server sent this round
    uint64_t bytesUp{0};                ///< bytes the server received this round
    bool deadlineHit{false};            ///< the round closed at its deadline
    uint32_t disconnected{0};           ///< selected clients that disconnected during the round
    const fl::ParamVector* globalModel{nullptr}; ///< the new global model (valid during the call)
};

/**
 * \ingroup fl
 * Synchronous FedAvg server.
 *
 * Clients connect over TCP and announce themselves with a Join message. Once ExpectedClients
 * have joined, the server runs Rounds rounds: it samples ClientsPerRound of the joined clients,
 * sends them the global model (encoded once, the same bytes to each), waits until all selected
 * clients answered or RoundDeadline passed, averages the received models weighted by their
 * sample counts (in client-id order, so the result does not depend on arrival order), and starts
 * the next round. Late answers (for an earlier round) are dropped and counted.
 */
class FlServerApplication : public Application
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    FlServerApplication();
    ~FlServerApplication() override;

    /// Sets the learning task (model, data, evaluation). Must be called before start.
    void SetTask(std::shared_ptr<const fl::LearningTask> task);
    /// The learning task.
    std::shared_ptr<const fl::LearningTask> GetTask() const;

    /// The current global model.
    const fl::ParamVector& GetGlobalModel() const;
    /// Number of completed rounds.
    uint32_t GetCompletedRounds() const;
    /// Whether all rounds are done.
    bool IsFinished() const;

    /// Counters of protocol anomalies: malformed bytes, stale and unexpected messages.
    struct Counters
    {
        uint64_t staleUpdates{0};       ///< updates for an earlier round (dropped)
        uint64_t unexpectedMessages{0}; ///< wrong kind, unknown or unselected sender, duplicates
        uint64_t badModelSize{0};       ///< updates whose size differs from the model's
        uint64_t malformedHeaders{0};   ///< from the connections' reassemblers
        uint64_t crcErrors{0};          ///< from the connections' reassemblers
        uint64_t disconnects{0};        ///< client connections closed during the run
    };

    /// Current counters (reassembler counts summed over connections).
    Counters GetCounters() const;

    /**
     * Assigns a fixed stream number to the random variables of this application.
     * @return the number of streams used
     */
    int64_t AssignStreams(int64_t stream);

    /// TracedCallback signature of RoundEnd.
    using RoundEndCallback = void (*)(const FlRoundReport& report);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    void HandleAccept(Ptr<Socket> socket, const Address& from);
    void HandleMessage(Ptr<FlMessageSocket> conn, fl::ReceivedMessage& msg);
    void HandlePeerClose(Ptr<Socket> socket);
    void StartRound();
    void CloseRound(bool deadlineHit);
    void Finish();
    uint64_t TotalBytesSent() const;
    uint64_t TotalBytesReceived() const;

    // Attributes
    uint16_t m_port;
    uint32_t m_rounds;
    uint32_t m_clientsPerRound;
    uint32_t m_expectedClients;
    Time m_roundDeadline;
    Time m_roundGap;
    std::string m_wirePrecision;
    uint32_t m_tcpSegmentSize{1448};
    uint64_t m_initSeed;
    double m_serverMomentum;
    double m_serverLearningRate;
    bool m_stopSimulation;

    std::shared_ptr<const fl::LearningTask> m_task;
    fl::WireEncoding m_wire{fl::WireEncoding::Float64};
    uint64_t m_quantSeed{0}; ///< base seed of the int8 quantiser's draws
    Ptr<Socket> m_listen;
    std::vector<Ptr<FlMessageSocket>> m_connections;
    std::map<uint32_t, Ptr<FlMessageSocket>> m_clients; ///< joined clients by index
    std::map<uint32_t, uint32_t> m_clientSamples;       ///< announced sample counts
    Ptr<UniformRandomVariable> m_rng;

    fl::ParamVector m_global;
    fl::ParamVector m_velocity; ///< FedAvgM server momentum buffer
    uint32_t m_round{0};
    bool m_roundOpen{false};
    bool m_finished{false};
    Time m_roundStart;
    std::vector<uint32_t> m_selected;
    std::map<uint32_t, fl::ReceivedMessage> m_received; ///< this round's updates by client
    uint32_t m_lostThisRound{0};
    uint64_t m_bytesSentAtStart{0};
    uint64_t m_bytesReceivedAtStart{0};
    EventId m_deadlineEvent;
    Counters m_counters;

    TracedCallback<const FlRoundReport&> m_roundEndTrace;
    TracedCallback<uint32_t, uint32_t> m_joinTrace;
};

} // namespace ns3

#endif // FL_SERVER_APPLICATION_H
