package io.skewguard.benchmarks;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine.Option;

/**
 * The JMH settings every JMH-backed {@code bench} command shares, and one run of the benchmarks whose
 * names match a pattern. The benchmarks run in a forked JVM on this process's class path (JMH's own
 * way), with the GC profiler, so that every score comes with its bytes per operation.
 */
public final class JmhRun {

    /** One benchmark method at one parameter value: its score, error and allocation. */
    public record Score(double score, double error, String unit, double bytesPerOp) {
        public String text() {
            return String.format("%.2f ± %.2f %s", score, error, unit);
        }
    }

    @Option(names = "--forks", defaultValue = "1", description = "JMH forks per benchmark (default: ${DEFAULT-VALUE})")
    int forks;

    @Option(names = "--warmup", defaultValue = "3", description = "warm-up iterations (default: ${DEFAULT-VALUE})")
    int warmupIterations;

    @Option(names = "--iterations", defaultValue = "5", description = "measured iterations (default: ${DEFAULT-VALUE})")
    int iterations;

    @Option(names = "--seconds", defaultValue = "2", description = "seconds per iteration, warm-up and measured (default: ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--result-json", description = "also write JMH's JSON result to this file")
    String resultJson;

    @Option(names = "--prof", description = "another JMH profiler beside gc, by JMH's name and options (e.g. stack, jfr); repeatable")
    java.util.List<String> profilers = java.util.List.of();

    /**
     * Runs the benchmarks matching {@code pattern} (a regular expression over
     * {@code Class.method}); the scores keyed {@code method@param} (the one parameter value, or
     * only {@code method} where the benchmark has none).
     */
    public Map<String, Score> run(String pattern) throws RunnerException {
        if (forks < 0 || warmupIterations < 0 || iterations < 1 || seconds < 1) {
            throw new IllegalArgumentException("--forks and --warmup must be at least 0, --iterations and --seconds at least 1");
        }
        ChainedOptionsBuilder options = new OptionsBuilder().include(pattern)
                .forks(forks)
                .warmupIterations(warmupIterations).warmupTime(TimeValue.seconds(seconds))
                .measurementIterations(iterations).measurementTime(TimeValue.seconds(seconds))
                .addProfiler(GCProfiler.class);
        for (String p : profilers) {
            int colon = p.indexOf(':');
            options.addProfiler(colon < 0 ? p : p.substring(0, colon), colon < 0 ? "" : p.substring(colon + 1));
        }
        if (resultJson != null) {
            options.result(resultJson).resultFormat(org.openjdk.jmh.results.format.ResultFormatType.JSON);
        }
        Collection<RunResult> results = new Runner(options.build()).run();
        Map<String, Score> scores = new LinkedHashMap<>();
        for (RunResult r : results) {
            String method = r.getParams().getBenchmark();
            method = method.substring(method.lastIndexOf('.') + 1);
            String param = r.getParams().getParamsKeys().stream().map(k -> r.getParams().getParam(k))
                    .reduce((a, b) -> a + "," + b).map(p -> "@" + p).orElse("");
            Result<?> primary = r.getPrimaryResult();
            Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
            if (alloc == null) {
                alloc = r.getSecondaryResults().get("·gc.alloc.rate.norm");
            }
            scores.put(method + param, new Score(primary.getScore(), primary.getScoreError(), primary.getScoreUnit(),
                    alloc == null ? Double.NaN : alloc.getScore()));
        }
        return scores;
    }
}
