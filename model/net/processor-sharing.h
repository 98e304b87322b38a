/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Processor sharing on one shared medium (pure, no ns-3): the delivery-time arithmetic of the
 * flow-level network model. A medium serves every active flow at once, each at an equal share
 * of its capacity; the share is recomputed whenever a flow starts or finishes. Work is measured
 * in seconds of exclusive use of the medium (a message of B bits on a link of goodput R needs
 * B / R seconds), so links of different rates can share one medium (airtime fairness).
 */
#ifndef FL_PROCESSOR_SHARING_H
#define FL_PROCESSOR_SHARING_H

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{
namespace fl
{

/**
 * The capacity of a shared medium with `senders` distinct active senders, as a fraction of its
 * capacity with one: 1 / (1 + contention (senders - 1)). contention = 0 is an ideal scheduler
 * (LTE, a full-duplex link); a CSMA/CA or CSMA/CD medium loses airtime to backoff and collisions
 * as more stations contend, which a calibrated contention > 0 accounts for.
 * @param senders distinct senders with an active flow (0 counts as 1)
 * @param contention the loss per extra sender (>= 0)
 */
double SharedCapacity(std::size_t senders, double contention);

/**
 * The work of one message on a medium, in seconds of its exclusive use:
 * wireBytes 8 / (rate efficiency) + packets perPacketS, the bytes (payload and per-packet
 * headers) at the medium's goodput plus a fixed airtime per packet (802.11: preamble, SIFS,
 * ACK, DIFS and the mean backoff of each frame exchange, IEEE Std 802.11-2016 Clause 10.3).
 * @param wireBytes the message's bytes and its packets' header bytes
 * @param rate the link rate [b/s] (> 0)
 * @param efficiency the share of the rate left for bytes, in (0, 1]
 * @param packets the packets the message is cut into
 * @param perPacketS fixed airtime per packet [s] (>= 0)
 */
double FlowMessageAirtime(double wireBytes,
                          double rate,
                          double efficiency,
                          double packets,
                          double perPacketS);

/**
 * The capacity of a shared medium with `bulk` active bulk flows (messages longer than TCP's
 * initial window, which keep the senders' queues full), as a fraction of its capacity under
 * light load: 1 / (1 + penalty max(0, 1 - free / bulk)). Up to `free` bulk flows cost nothing;
 * beyond, the loss grows towards `penalty` and saturates, as the MAC's saturation throughput
 * does with the number of stations that always have a frame to send (G. Bianchi, "Performance
 * analysis of the IEEE 802.11 distributed coordination function", IEEE JSAC 18(3), 2000) and
 * as TCP's losses do once the connections' windows overflow the queues.
 * @param bulk active bulk flows on the medium
 * @param free bulk flows served without loss (>= 0)
 * @param penalty the loss as bulk grows without bound (>= 0; 0: none)
 */
double BulkLoadCapacity(std::size_t bulk, double free, double penalty);

/**
 * Association of the stations of an 802.11 BSS that all start scanning at once (as ns-3's
 * StaWifiMac does at time 0 with passive scanning): every station that has not associated
 * sends an association request at the end of its scan (attempt 0) and, if it gets no answer,
 * again every `retryS` (ns3::StaWifiMac::AssocRequestTimeout). Of m stations contending in one
 * attempt about AssociationSuccesses(m) associate; the others wait for the next attempt. The
 * r-th station (r = 0, 1, ...) to associate in attempt j does so at
 * firstS + j retryS + (r + 1) perStationS (AssociationTime). Fitted on packet-level runs of
 * 10, 20 and 40 stations (802.11n, ns-3.37; module documentation, "Flow-level fidelity").
 */
struct AssociationModel
{
    double firstS{0.1196};       ///< end of the scan, the first request [s]
    double perStationS{0.00089}; ///< one station's request, response and acknowledgements [s]
    double retryS{0.5};          ///< ns3::StaWifiMac::AssocRequestTimeout [s]
    double capacity{17.0};       ///< associations per attempt as contenders grow without bound
    double sharpness{5.0};       ///< how sharply the successes saturate at `capacity`
    uint32_t maxAttempts{50};    ///< attempts after which a station counts as associated anyway
};

/**
 * The expected number of stations that associate in one attempt in which `contenders`
 * stations send an association request: (m^-k + C^-k)^(-1/k), about m when m << C, saturating
 * at the capacity C (k the sharpness).
 * @param contenders stations contending (>= 0; 0 gives 0)
 * @param capacity C (> 0)
 * @param sharpness k (> 0)
 */
double AssociationSuccesses(double contenders, double capacity, double sharpness);

/**
 * The probability that one of `contenders` stations fails to associate in an attempt:
 * 1 - AssociationSuccesses(m) / m (0 for m <= 0).
 */
double AssociationFailureProbability(double contenders, double capacity, double sharpness);

/// When the r-th station (from 0) to associate in attempt `attempt` does so [s]:
/// firstS + attempt retryS + (rank + 1) perStationS.
double AssociationTime(uint32_t attempt, uint32_t rank, const AssociationModel& model);

/**
 * Draws the association time of each of `stations` stations [s]: in each attempt every
 * station still contending fails with AssociationFailureProbability(contenders) (one draw of
 * `uniform`, in [0, 1), per contending station in station order: a draw below the probability
 * fails); those that succeed get their AssociationTime in station order. After maxAttempts the
 * stations left get the time of the next attempt.
 */
std::vector<double> DrawAssociationTimes(uint32_t stations,
                                         const AssociationModel& model,
                                         const std::function<double()>& uniform);

/// How a medium shares its capacity.
enum class SharingDiscipline : uint8_t
{
    /// every active flow gets an equal share (a scheduler that serves each flow, e.g. LTE's)
    PerFlow = 0,
    /// every sender with an active flow gets an equal share, and serves its own flows one after
    /// the other in the order they started (one transmit queue per station, as 802.11 DCF and
    /// CSMA/CD: the medium is fair among stations, not among flows)
    PerSender = 1,
    /// every sender with an active flow gets an equal share, split equally among its active
    /// flows (one transmit queue per station that several TCP connections fill in turn: the
    /// medium is fair among stations, a station's connections share its turn)
    PerSenderShared = 2,
    /// every sender with an active flow gets an equal share; a sender whose oldest flow is
    /// short (not bulk: it fits TCP's initial window and leaves in one burst) serves it alone,
    /// otherwise its share is split equally among its bulk flows (TCP interleaves connections
    /// whose messages outlast the initial window): PerSender for short messages,
    /// PerSenderShared for bulk ones
    BySize = 3,
};

/**
 * The flows on one medium, served by processor sharing: between two events the capacity
 * C = SharedCapacity(distinct senders, contention) is shared: C / (active flows) to every flow
 * (PerFlow); C / (senders) to the oldest active flow of each sender, the others waiting
 * (PerSender); C / (senders) / (the sender's active flows) to every flow (PerSenderShared).
 * Advance the clock with Advance(now) before Add or Remove;
 * NextCompletion says which flow finishes first and when, if nothing else starts before.
 */
class ProcessorSharingMedium
{
  public:
    /**
     * @param contention see SharedCapacity (>= 0)
     * @param discipline who gets an equal share
     */
    explicit ProcessorSharingMedium(double contention = 0.0,
                                    SharingDiscipline discipline = SharingDiscipline::PerFlow);
    /**
     * The capacity under bulk load (BulkLoadCapacity).
     * @param free bulk flows served without loss
     * @param penalty the loss as the bulk flows grow without bound
     */
    void SetBulkLoad(double free, double penalty);

    /// Serves the active flows from the last event up to `now` (now >= the last event).
    void Advance(double now);
    /**
     * Starts flow `id` of `work` seconds of exclusive service from sender `sender`, at the time
     * of the last Advance. Ids must be unique among the active flows.
     */
    void Add(uint64_t id, double work, uint32_t sender, bool bulk = false);
    /// Removes flow `id` (finished or abandoned); no-op if it is not active.
    void Remove(uint64_t id);
    /// Whether no flow is active.
    bool Empty() const
    {
        return m_flows.empty();
    }
    /// Active flows.
    std::size_t Active() const
    {
        return m_flows.size();
    }
    /// The rate at which flow `id` is served now (0 if it is not active or not in service).
    double Rate(uint64_t id) const;
    /// Whether flow `id` is in service (not waiting behind an older flow of its sender).
    bool InService(uint64_t id) const;
    /**
     * The flow that finishes first if no other flow starts, and when (absolute time).
     * @return false if no flow is active
     */
    bool NextCompletion(uint64_t& id, double& time) const;
    /// Work still to serve of flow `id` (0 if not active).
    double Remaining(uint64_t id) const;

  private:
    struct Flow
    {
        double remaining; ///< seconds of exclusive service still needed
        uint32_t sender;  ///< its sender
        uint64_t order;   ///< when it was added (PerSender: oldest first)
        bool bulk;        ///< longer than TCP's initial window (BySize, BulkLoadCapacity)
    };

    /// The capacity now, as a fraction of the medium's.
    double Capacity() const;

    double m_contention;
    SharingDiscipline m_discipline;
    double m_bulkFree{0.0};
    double m_bulkPenalty{0.0};
    std::size_t m_bulk{0}; ///< active bulk flows
    uint64_t m_added{0};
    double m_now{0.0};
    std::map<uint64_t, Flow> m_flows; ///< by id (deterministic order)
    /// per sender with an active flow: its flows' (order, id), oldest first
    std::map<uint32_t, std::map<uint64_t, uint64_t>> m_senders;
};

/// One message offered to a medium (ProcessorSharingCompletions).
struct SharedFlow
{
    double arrival{0.0}; ///< when it starts [s]
    double work{0.0};    ///< seconds of exclusive service it needs (>= 0)
    uint32_t sender{0};  ///< who sends it (for the contention term)
    bool bulk{false};    ///< longer than TCP's initial window
};

/**
 * When each flow finishes on one medium shared by processor sharing (ProcessorSharingMedium),
 * flows arriving at their given times. The event-driven computation is exact up to floating
 * point rounding: between two events the rates are constant.
 * @param flows the flows, in any order
 * @param contention see SharedCapacity
 * @param discipline who gets an equal share (flows arriving at the same time from one sender
 *        are queued in their order in `flows`)
 * @return the completion time of flows[i] at index i
 */
std::vector<double> ProcessorSharingCompletions(
    const std::vector<SharedFlow>& flows,
    double contention = 0.0,
    SharingDiscipline discipline = SharingDiscipline::PerFlow,
    double bulkFree = 0.0,
    double bulkPenalty = 0.0);

} // namespace fl
} // namespace ns3

#endif // FL_PROCESSOR_SHARING_H
