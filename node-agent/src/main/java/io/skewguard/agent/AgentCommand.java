package io.skewguard.agent;

import io.skewguard.agent.service.AgentServiceSettings;
import io.skewguard.runtime.lifecycle.ProcessLifecycle;
import io.skewguard.runtime.settings.SettingsOptions;
import io.skewguard.runtime.registry.RegistryProbe;
import io.skewguard.runtime.topics.RequiredTopics;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code skewguard agent}: checks the topics ({@link RequiredTopics}), then runs the
 * {@link AgentService} under the shared {@link ProcessLifecycle} until SIGTERM or SIGINT, stops it
 * in order and exits 0; exits 1 if a part fails or the close overruns, 2 on a bad setting.
 */
@Command(name = "agent", mixinStandardHelpOptions = true, sortOptions = false,
        modelTransformer = AgentCommand.Flags.class,
        description = {"Runs the node agents of one or several storage nodes: per node a store, the agent applying "
                + "weight and migration commands, the heat and capacity reporter; the writers' router; optionally a "
                + "load generator. See docs/agents.md."})
public final class AgentCommand implements Callable<Integer> {

    static {
        // Log4j's own shutdown hook would stop logging while ours still closes the agents, losing the
        // lines of the shutdown. Must run before the first logger is created (textual order).
        if (System.getProperty("log4j2.shutdownHookEnabled") == null) {
            System.setProperty("log4j2.shutdownHookEnabled", "false");
        }
    }

    /** The flags of {@link AgentServiceSettings#MODEL}. */
    public static final class Flags extends SettingsOptions {
        public Flags() {
            super(AgentServiceSettings.MODEL);
        }
    }

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new AgentCommand()).execute(args));
    }

    @Override
    public Integer call() {
        return SettingsOptions.run(spec, AgentServiceSettings.MODEL, System.getenv(), settings -> {
            AgentServiceSettings agent = AgentServiceSettings.from(settings);
            return ProcessLifecycle.builder("agent")
                    .service(RequiredTopics.of(settings))
                    .service(RegistryProbe.of(settings))
                    .service(new AgentService(agent, System::currentTimeMillis))
                    .closeTimeout(agent.closeTimeout())
                    .healthEndpoint(agent.healthHost(), agent.healthPort())
                    .build()
                    .run();
        });
    }
}
