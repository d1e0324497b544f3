package io.skewguard.agent;

import io.skewguard.agent.service.AgentServiceSettings;
import io.skewguard.runtime.settings.SettingsOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code skewguard agent}: runs the {@link AgentService} until SIGTERM or SIGINT, then stops it in
 * order and exits 0; exits 1 if a part fails, 2 on a bad setting.
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

    private static final Logger LOG = LoggerFactory.getLogger(AgentCommand.class);
    private static final Duration WATCH = Duration.ofMillis(200);

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
        return SettingsOptions.run(spec, AgentServiceSettings.MODEL, System.getenv(),
                settings -> run(new AgentService(AgentServiceSettings.from(settings), System::currentTimeMillis)));
    }

    /** Runs {@code service} until a signal or a failure; the exit code. */
    static int run(AgentService service) {
        CountDownLatch closedBySignal = new CountDownLatch(1);
        int[] signalCode = {0};
        Thread hook = new Thread(() -> {
            LOG.info("{}: shutdown signal received; closing", service.name());
            signalCode[0] = service.close(service.settings().closeTimeout()) ? 0 : 1;
            closedBySignal.countDown();
            // a JVM ended by a signal exits with 128 + the signal number unless it halts with its own code
            Runtime.getRuntime().halt(signalCode[0]);
        }, "skewguard-agent-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            service.start();
        } catch (RuntimeException e) {
            LOG.error("{}: failed to start: {}", service.name(), e.getMessage(), e);
            removeHook(hook);
            service.close();
            return 1;
        }
        boolean readyLogged = false;
        try {
            while (true) {
                Optional<Throwable> failure = service.failure();
                if (failure.isPresent()) {
                    LOG.error("{}: failed; stopping: {}", service.name(), failure.get().toString(), failure.get());
                    break;
                }
                if (!readyLogged && service.ready()) {
                    readyLogged = true;
                    LOG.info("{} ready", service.name());
                }
                if (closedBySignal.await(WATCH.toMillis(), TimeUnit.MILLISECONDS)) {
                    return signalCode[0];
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        removeHook(hook);
        service.close();
        return 1;
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs already and ends the process
        }
    }
}
