package io.skewguard.sim.run;

import java.util.ArrayList;
import java.util.List;

/**
 * What a policy's run looked like over time, for the charts: samples at a fixed interval (and every
 * step around a hot spot), per-node utilisation at repair start and at the end, and weights.
 */
public final class Series {

    /** Simulated days of each sample. */
    public final List<Double> day = new ArrayList<>();
    public final List<Double> heatGini = new ArrayList<>();
    public final List<Double> capacityCv = new ArrayList<>();
    public final List<Double> bytesMoved = new ArrayList<>();
    /** Per sample, the weight factor of every node (index order; NaN for a node not in the cluster). */
    public final List<double[]> weights = new ArrayList<>();
    /** Node ids, index order. */
    public List<String> nodes = List.of();
    /** Utilisation per node at repair start (NaN for a node not in the cluster then). */
    public double[] utilisationBefore = new double[0];
    /** Utilisation per node at the end. */
    public double[] utilisationAfter = new double[0];

    void add(double d, double gini, double cv, double moved, double[] w) {
        day.add(d);
        heatGini.add(gini);
        capacityCv.add(cv);
        bytesMoved.add(moved);
        weights.add(w);
    }
}
