package io.skewguard.benchmarks;

import io.skewguard.benchmarks.detector.DetectorThroughput;
import io.skewguard.benchmarks.store.StoreUnderMigration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code skewguard bench}: every benchmark of docs/benchmarks.md under one command, each printing
 * its baseline, measured in the same run, and the ratio, with the machine's load.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Runs a benchmark: its figures, a baseline measured in the same run, the ratio and the load.",
            "Figures and commands: docs/benchmarks.md. The JMH benchmarks run in a forked JVM."},
        subcommands = {
            BenchCommand.Placement.class,
            BenchCommand.Agents.class,
            BenchCommand.Planner.class,
            BenchCommand.Reads.class,
            BenchCommand.Serde.class,
            BenchCommand.Take.class,
            DetectorThroughput.class,
            StoreUnderMigration.class,
        })
public final class BenchCommand implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** A JMH-backed benchmark: runs its pattern, then prints its ratio table and the load. */
    abstract static class JmhBench implements Callable<Integer> {
        @Mixin
        JmhRun jmh;

        abstract String pattern();

        abstract RatioTable table(Map<String, JmhRun.Score> scores);

        @Override
        public Integer call() throws Exception {
            MachineLoad load = MachineLoad.now();
            Map<String, JmhRun.Score> scores = jmh.run(pattern());
            System.out.println();
            System.out.print(table(scores).markdown());
            System.out.println();
            System.out.println(load.untilNow());
            return scores.isEmpty() ? 1 : 0;
        }
    }

    @Command(name = "placement", mixinStandardHelpOptions = true,
            description = {"Ring lookup and weighted pick against XXH3 of the key and a TreeMap ring (JMH, ~3 min).",
                "core's HashRing.lookup and SlotTable pick at 48 and 512 nodes."})
    static final class Placement extends JmhBench {
        @Override
        String pattern() {
            return "RingLookupBenchmark\\.(hashRing|treeMapRing|keyHashOnly)$|WeightedPickBenchmark\\.pick$";
        }

        @Override
        RatioTable table(Map<String, JmhRun.Score> s) {
            RatioTable t = new RatioTable(s);
            for (String nodes : new String[] {"48", "512"}) {
                t.ratio("ring lookup ÷ XXH3 of the key alone, " + nodes + " nodes", "hashRing@" + nodes,
                        "keyHashOnly@" + nodes, "≤ 1.3");
                t.ratio("weighted pick ÷ ring lookup, " + nodes + " nodes", "pick@" + nodes, "hashRing@" + nodes,
                        "≤ 1.5, 0 B/op");
                t.ratio("ring lookup ÷ TreeMap ring, " + nodes + " nodes", "hashRing@" + nodes, "treeMapRing@" + nodes,
                        "≤ 0.25 at 512 nodes");
            }
            return t;
        }
    }

    @Command(name = "agents", mixinStandardHelpOptions = true,
            description = {"The agents' write path against a TreeMap ring and a map of LongAdders (JMH, ~3 min).",
                "node-agent's RoutingView.pick and NodeReporter.record, on one and four threads."})
    static final class Agents extends JmhBench {
        @Override
        String pattern() {
            return "RoutingViewPickBenchmark\\.pick$|RingLookupBenchmark\\.treeMapRing$|NodeReporterBenchmark";
        }

        @Override
        RatioTable table(Map<String, JmhRun.Score> s) {
            return new RatioTable(s)
                    .ratio("routing view pick ÷ TreeMap ring, 48 nodes", "pick@48", "treeMapRing@48", "")
                    .ratio("routing view pick ÷ TreeMap ring, 512 nodes", "pick@512", "treeMapRing@512", "")
                    .ratio("reporter record ÷ map of LongAdders, 1 thread", "recordOneThread", "baselineMapOneThread", "< 1")
                    .ratio("reporter record ÷ map of LongAdders, 4 threads", "recordFourThreads", "baselineMapFourThreads", "< 1");
        }
    }

    @Command(name = "serde", mixinStandardHelpOptions = true,
            description = {"The nodes' two records through the wire-format serde against Avro's own coders (JMH, ~1.5 min).",
                "schemas' SchemaRegistrySerde on a write event and a 43-shard capacity report, encoded and decoded."})
    static final class Serde extends JmhBench {
        @Override
        String pattern() {
            return "SerdeBenchmark";
        }

        @Override
        RatioTable table(Map<String, JmhRun.Score> s) {
            return new RatioTable(s)
                    .ratio("encode a write event ÷ Avro's writer", "serializeWrite", "avroSerializeWrite", "< 1")
                    .ratio("decode a write event ÷ Avro's reader", "deserializeWrite", "avroDeserializeWrite", "< 1")
                    .ratio("encode a capacity report ÷ Avro's writer", "serializeCapacity", "avroSerializeCapacity", "< 1")
                    .ratio("decode a capacity report ÷ Avro's reader", "deserializeCapacity", "avroDeserializeCapacity", "< 1");
        }
    }

    @Command(name = "take", mixinStandardHelpOptions = true,
            description = {"One write event taken by the detector's stage one against decoding it alone (JMH, ~1 min).",
                "detector's IngestBuffer.accept on records in memory at 48 and 512 nodes; `bench detector` measures it with the fetch."})
    static final class Take extends JmhBench {
        @Override
        String pattern() {
            return "TakeBenchmark";
        }

        @Override
        RatioTable table(Map<String, JmhRun.Score> s) {
            return new RatioTable(s)
                    .ratio("take a write event ÷ decode it alone, 48 nodes", "take@48", "decodeAlone@48", "")
                    .ratio("take a write event ÷ decode it alone, 512 nodes", "take@512", "decodeAlone@512", "");
        }
    }

    @Command(name = "planner", mixinStandardHelpOptions = true,
            description = {"One migration plan against its budget of one second (JMH, ~1 min).",
                "migrator's coldest-first plan for a skewed cluster at 48 × 256 and 512 × 4096 slots."})
    static final class Planner extends JmhBench {
        @Override
        String pattern() {
            return "PlannerBenchmark\\.plan$";
        }

        @Override
        RatioTable table(Map<String, JmhRun.Score> s) {
            return new RatioTable(s)
                    .againstBudget("one plan, 48 nodes × 256 slots", "plan@48:256", 1000, "budget 1,000 ms", "≪ 1")
                    .againstBudget("one plan, 512 nodes × 4096 slots", "plan@512:4096", 1000, "budget 1,000 ms", "≪ 1");
        }
    }

    @Command(name = "reads", mixinStandardHelpOptions = true,
            description = {"A read in a spread slot against a read of an unspread one (JMH, ~2 min), and the exact probes per read.",
                "node-agent's RoutingView.probe (core's ProbeOrder) with 0, 4, 8, 24 and 40 spread nodes per slot, 48 nodes."})
    static final class Reads extends JmhBench {
        @Override
        String pattern() {
            return "SpreadReadBenchmark\\.(read|pickTopCandidates)$";
        }

        @Override
        RatioTable table(Map<String, JmhRun.Score> s) {
            RatioTable t = new RatioTable(s);
            for (String extras : new String[] {"0", "4", "8", "24", "40"}) {
                t.ratio("read of a key written before the spread, " + extras + " spread nodes ÷ pickTop over 8 candidates",
                        "read@" + extras, "pickTopCandidates@0", "0 B/op");
            }
            return t;
        }

        @Override
        public Integer call() throws Exception {
            int status = super.call();
            System.out.println();
            System.out.println("| spread nodes | holders | probes, key written before the spread: mean | p99 | max "
                    + "| key written after it: mean | p99 |");
            System.out.println("|---:|---:|---:|---:|---:|---:|---:|");
            for (int extras : new int[] {0, 4, 8, 24, 40}) {
                System.out.println(SpreadReadBenchmark.probeCounts(extras));
            }
            return status;
        }
    }
}
