package io.skewguard.sim.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.skewguard.sim.run.PolicySummary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code summary.json}: the table's figures under stable keys, one object per policy. Ratios are
 * rounded to 6 decimals and bytes to whole bytes, so the same scenario and seed give the same text
 * (only {@code wallSeconds} differs from run to run).
 */
public final class SummaryJson {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private SummaryJson() {}

    public static String render(String scenario, long seed, List<PolicySummary> policies) {
        return render(scenario, seed, null, policies);
    }

    /** With {@code mode} ({@code model} or {@code fast}: how the skewguard policy ran) as a top-level key. */
    public static String render(String scenario, long seed, String mode, List<PolicySummary> policies) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("scenario", scenario);
        root.put("seed", seed);
        if (mode != null) {
            root.put("mode", mode);
        }
        Map<String, Object> byPolicy = new LinkedHashMap<>();
        for (PolicySummary p : policies) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("baselineCv", ratio(p.baselineCv()));
            m.put("baselineGap", ratio(p.baselineGap()));
            m.put("giniBeforeWeights", ratio(p.giniBeforeWeights()));
            m.put("giniAfterWeights", ratio(p.giniAfterWeights()));
            m.put("weightPhaseDays", ratio(p.weightPhaseDays()));
            m.put("finalCv", ratio(p.finalCv()));
            m.put("finalGap", ratio(p.finalGap()));
            m.put("endCv", ratio(p.endCv()));
            m.put("bytesMoved", Math.round(p.bytesMoved()));
            m.put("minimumBytes", Math.round(p.minimumBytes()));
            m.put("movedOverMinimum", ratio(p.movedOverMinimum()));
            m.put("hotspotGiniPeak", ratio(p.hotspotGiniPeak()));
            m.put("giniBeforeHotspot", ratio(p.giniBeforeHotspot()));
            m.put("hotspotRecoveryMinutes", ratio(p.hotspotRecoveryMinutes()));
            m.put("hotspotSettleMinutes", ratio(p.hotspotSettleMinutes()));
            m.put("hotspotBytesMoved", p.hotspotBytesMoved() == null ? null : Math.round(p.hotspotBytesMoved()));
            m.put("hotspotRecoveryBytes", p.hotspotRecoveryBytes() == null ? null : Math.round(p.hotspotRecoveryBytes()));
            m.put("totalBytesMoved", Math.round(p.totalBytesMoved()));
            m.put("recoveryBytes", Math.round(p.recoveryBytes()));
            m.put("refusedBytes", Math.round(p.refusedBytes()));
            m.put("joinedUtilisationSpread", ratio(p.joinedUtilisationSpread()));
            m.put("writesReroutedFromLost", Math.round(p.writesReroutedFromLost()));
            m.put("writesToLostAfterUpdate", Math.round(p.writesToLostAfterUpdate()));
            m.put("weightChanges", p.weightChanges());
            m.put("keysWritten", p.keysWritten());
            m.put("keysUnreadable", p.keysUnreadable());
            Map<String, Object> probes = new LinkedHashMap<>();
            probes.put("unspread", probes(p.readProbes()));
            probes.put("spread", probes(p.spreadReadProbes()));
            m.put("readProbes", probes);
            m.put("wallSeconds", ratio(p.wallSeconds()));
            m.put("notes", p.notes());
            byPolicy.put(p.policy(), m);
        }
        root.put("policies", byPolicy);
        try {
            return JSON.writeValueAsString(root) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, Object> probes(io.skewguard.sim.run.ReadProbes r) {
        if (r == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("keys", r.keys());
        m.put("mean", ratio(r.mean()));
        m.put("p99", r.p99());
        m.put("max", r.max());
        return m;
    }

    private static Double ratio(Double v) {
        return v == null ? null : Math.round(v * 1e6) / 1e6;
    }
}
