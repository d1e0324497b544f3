package io.skewguard.sim.report;

/** docs/design.md §10: the figures of the paper's production study, as printed next to ours. */
final class PaperFigures {

    private PaperFigures() {}

    static final String BASELINE_CV = "0.37";
    static final String BASELINE_GAP = "≈ 41 %";
    static final String GINI_BEFORE = "0.43";
    static final String GINI_AFTER = "0.22";
    static final String WEIGHT_DAYS = "≤ 3";
    static final String FINAL_CV = "0.09";
    static final String FINAL_GAP = "< 12 %";
    static final String BYTES_MOVED = "≈ 1.2 TB";
    static final String HOTSPOT_PEAK = "0.51";
    static final String HOTSPOT_MINUTES = "< 40";
    static final String HOTSPOT_BYTES = "≤ 250 GB";
}
