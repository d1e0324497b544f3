package io.skewguard.sim.run;

/** One policy's run: its summary figures and its series. */
public record PolicyRun(PolicySummary summary, Series series) {}
