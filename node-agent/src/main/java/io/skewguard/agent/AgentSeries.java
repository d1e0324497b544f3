package io.skewguard.agent;

import io.micrometer.core.instrument.Counter;
import io.skewguard.agent.command.AgentInput;
import io.skewguard.runtime.metrics.DeadLetterCounter;
import io.skewguard.runtime.metrics.ProcessMetrics;
import java.util.Locale;

/**
 * One agent's {@code skewguard_…} series, labelled by its cluster and node, set where the
 * {@link CommandAgent} applies or sets aside a command (docs/operations.md, "Metrics and health"):
 * <ul>
 *   <li>{@code skewguard_agent_commands_applied_total{cluster,node,command}}: commands carried out,
 *       by what they are ({@code weight}, or the migration phase: {@code copy}, {@code prepare}, …);</li>
 *   <li>{@code skewguard_agent_commands_refused_total{cluster,node,reason}}: commands not carried
 *       out, by the reason code: those set aside on the dead-letter topic ({@code invalid},
 *       {@code undecodable}, {@code poison}, a signature's code) and those a safety rule refused
 *       ({@value #SAFETY_RULE}: answered FAILED, nothing touched).</li>
 * </ul>
 */
final class AgentSeries {

    /** The reason of a command refused by a safety rule of the applier rather than set aside. */
    static final String SAFETY_RULE = "safety-rule";

    private final String cluster;
    private final String node;

    AgentSeries(String cluster, String node) {
        this.cluster = cluster;
        this.node = node;
    }

    /** A command decided on; {@code refused} when a safety rule refused it. */
    void decided(AgentInput input, boolean refused) {
        if (refused) {
            refusedFor(SAFETY_RULE);
            return;
        }
        String command = input instanceof AgentInput.Step step
                ? step.command().getPhase().name().toLowerCase(Locale.ROOT) : "weight";
        Counter.builder("skewguard.agent.commands.applied")
                .description("commands the agent carried out, by command")
                .tag("cluster", cluster)
                .tag("node", node)
                .tag("command", command)
                .register(ProcessMetrics.registry())
                .increment();
    }

    /** A command set aside on the dead-letter topic with {@code reason}. */
    void setAside(String reason) {
        refusedFor(DeadLetterCounter.code(reason));
        DeadLetterCounter.count(reason);
    }

    private void refusedFor(String code) {
        Counter.builder("skewguard.agent.commands.refused")
                .description("commands the agent did not carry out, by reason code")
                .tag("cluster", cluster)
                .tag("node", node)
                .tag("reason", code)
                .register(ProcessMetrics.registry())
                .increment();
    }
}
