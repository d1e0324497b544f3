package io.skewguard.sim.run;

import java.util.List;

/**
 * The figures of one policy on one scenario, under the stable keys of {@code summary.json}. Times are
 * simulated; a figure that does not apply (no hot spot, no weight phase) is null.
 *
 * @param policy policy name
 * @param baselineCv capacity CV when repair may start ({@code repair.from}), before any policy acts
 * @param baselineGap max − min utilisation then
 * @param giniBeforeWeights heat Gini then
 * @param giniAfterWeights heat Gini when the policy's weight phase ended (null if it has none or never ended)
 * @param weightPhaseDays days from repair start to that end
 * @param finalCv capacity CV at the end of the repair phase (just before the first hot spot, else at the end)
 * @param finalGap max − min utilisation then
 * @param endCv capacity CV at the end of the scenario
 * @param bytesMoved bytes the policy moved in the repair phase (switches or relocations)
 * @param minimumBytes Σ positive excess above the target utilisation at repair start: the least any
 *     policy had to move
 * @param movedOverMinimum bytesMoved / minimumBytes
 * @param hotspotGiniPeak highest heat Gini after the hot spot started
 * @param giniBeforeHotspot mean heat Gini over the hour before the hot spot
 * @param hotspotRecoveryMinutes minutes from the hot spot until the heat Gini is back under 0.25 and
 *     stays there for 30 minutes (0 when it never went above; null: never back)
 * @param hotspotSettleMinutes minutes from the hot spot until the heat Gini is back within 0.02 of
 *     {@code giniBeforeHotspot} and stays there for 30 minutes (null: never)
 * @param hotspotBytesMoved bytes the policy moved from the hot spot to the end
 * @param hotspotRecoveryBytes bytes the policy moved from the hot spot until its recovery began (the start
 *     of the 30 minutes under 0.25; null: no hot spot, or never back)
 * @param totalBytesMoved bytes the policy moved over the whole run
 * @param recoveryBytes bytes rebuilt from replicas after node losses (the same for every policy)
 * @param refusedBytes writes no candidate could take because every candidate of the slot was full
 * @param joinedUtilisationSpread at the end of the repair phase, the largest {@code |u − mean| / mean}
 *     utilisation among the nodes that joined during the run (null: no join)
 * @param writesReroutedFromLost bytes the writers routed to a lost node before the slot-table update that
 *     replaced it, which went to the slot's other candidates (only when the policy's slot table follows
 *     membership: fast mode)
 * @param writesToLostAfterUpdate bytes the writers routed to a lost node after that update: 0 when the
 *     update replaced it in every candidate set
 * @param weightChanges weight-factor changes over the run
 * @param keysWritten sampled keys written
 * @param keysUnreadable sampled keys no node of their candidate set holds at the end
 * @param readProbes probes per read of the sampled keys in slots that are not spread (and hold no held
 *     node) at the end (null: none)
 * @param spreadReadProbes the same in slots that are spread or have held nodes (null: none)
 * @param wallSeconds wall time of this policy's run
 * @param notes plain statements about limits hit
 */
public record PolicySummary(
        String policy,
        double baselineCv,
        double baselineGap,
        double giniBeforeWeights,
        Double giniAfterWeights,
        Double weightPhaseDays,
        double finalCv,
        double finalGap,
        double endCv,
        double bytesMoved,
        double minimumBytes,
        double movedOverMinimum,
        Double hotspotGiniPeak,
        Double giniBeforeHotspot,
        Double hotspotRecoveryMinutes,
        Double hotspotSettleMinutes,
        Double hotspotBytesMoved,
        Double hotspotRecoveryBytes,
        double totalBytesMoved,
        double recoveryBytes,
        double refusedBytes,
        Double joinedUtilisationSpread,
        double writesReroutedFromLost,
        double writesToLostAfterUpdate,
        long weightChanges,
        long keysWritten,
        long keysUnreadable,
        ReadProbes readProbes,
        ReadProbes spreadReadProbes,
        double wallSeconds,
        List<String> notes) {

    /** Figures of a run without joins and without losses followed by the policy (the demo's). */
    public PolicySummary(String policy, double baselineCv, double baselineGap, double giniBeforeWeights,
                         Double giniAfterWeights, Double weightPhaseDays, double finalCv, double finalGap, double endCv,
                         double bytesMoved, double minimumBytes, double movedOverMinimum, Double hotspotGiniPeak,
                         Double giniBeforeHotspot, Double hotspotRecoveryMinutes, Double hotspotSettleMinutes,
                         Double hotspotBytesMoved, double totalBytesMoved, double recoveryBytes, double refusedBytes,
                         long weightChanges, long keysWritten, long keysUnreadable, double wallSeconds, List<String> notes) {
        this(policy, baselineCv, baselineGap, giniBeforeWeights, giniAfterWeights, weightPhaseDays, finalCv, finalGap, endCv,
                bytesMoved, minimumBytes, movedOverMinimum, hotspotGiniPeak, giniBeforeHotspot, hotspotRecoveryMinutes,
                hotspotSettleMinutes, hotspotBytesMoved, null, totalBytesMoved, recoveryBytes, refusedBytes, null, 0, 0,
                weightChanges, keysWritten, keysUnreadable, null, null, wallSeconds, notes);
    }
}
