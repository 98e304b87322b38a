/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The FedAvg client: receives the global model, trains locally, sends its model back.
 */
#ifndef FL_CLIENT_APPLICATION_H
#define FL_CLIENT_APPLICATION_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/fl-message-socket.h"
#include "ns3/learning-task.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <memory>

namespace ns3
{

/**
 * \ingroup fl
 * Federated-learning client.
 *
 * Connects to the server over TCP and sends a Join message (its index and sample count). For
 * each GlobalModel message it runs the task's local trainer on its own data (real computation,
 * in-process), waits the simulated compute time, and sends its new model back as a LocalModel
 * message. Compute time = FLOPs / FlopRate if FlopRate > 0, else samples processed x
 * SecondsPerSample. Training randomness comes from an engine seeded with
 * DeriveSeed(TrainingSeed, round), so results do not depend on the order of events.
 */
class FlClientApplication : public Application
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();
    FlClientApplication();
    ~FlClientApplication() override;

    /// Sets the learning task. Must be called before start.
    void SetTask(std::shared_ptr<const fl::LearningTask> task);

    /// The seed in use (valid after start: the attribute, or the value drawn from the stream).
    uint64_t GetTrainingSeed() const;
    /// Rounds in which this client trained.
    uint32_t GetRoundsTrained() const;
    /// Bytes sent and received on the server connection.
    uint64_t GetBytesSent() const;
    uint64_t GetBytesReceived() const;
    /// Messages dropped by the reassembler (malformed headers + CRC errors) and unexpected ones.
    uint64_t GetDroppedMessages() const;

    /// Assigns a fixed stream number to this application's random variables. \return 1
    int64_t AssignStreams(int64_t stream);

    /// Signature of the TrainingDone trace: round, local steps, mean loss, compute time.
    using TrainingDoneCallback = void (*)(uint32_t round,
                                          uint32_t steps,
                                          double loss,
                                          Time compute);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void ConnectionSucceeded(Ptr<Socket> socket);
    void ConnectionFailed(Ptr<Socket> socket);
    void HandleMessage(Ptr<FlMessageSocket> conn, fl::ReceivedMessage& msg);
    void SendUpdate(uint32_t round, std::shared_ptr<const std::vector<uint8_t>> bytes);

    // Attributes
    Address m_serverAddress;
    uint16_t m_serverPort;
    uint32_t m_clientIndex;
    double m_secondsPerSample;
    double m_flopRate;
    std::string m_wirePrecision;
    uint32_t m_tcpSegmentSize{1448};
    uint64_t m_trainingSeedAttr;

    std::shared_ptr<const fl::LearningTask> m_task;
    fl::WireEncoding m_wire{fl::WireEncoding::Float64};
    uint64_t m_trainingSeed{0};
    Ptr<UniformRandomVariable> m_rng;
    Ptr<Socket> m_socket;
    Ptr<FlMessageSocket> m_conn;
    EventId m_sendEvent;
    uint32_t m_roundsTrained{0};
    uint64_t m_unexpected{0};

    TracedCallback<uint32_t, uint32_t, double, Time> m_trainingDoneTrace;
};

} // namespace ns3

#endif // FL_CLIENT_APPLICATION_H
