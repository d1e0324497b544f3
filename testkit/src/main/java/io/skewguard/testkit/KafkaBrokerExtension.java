package io.skewguard.testkit;

import io.skewguard.embedded.EmbeddedKafka;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that runs one {@link EmbeddedKafka} per test class: started before the first
 * test, closed (data removed) after the last.
 *
 * <p>Why one per class rather than one per JVM: only the first broker of a JVM is slow to start
 * (3–5 s here, mostly class loading); later ones start in well under a second, which is cheap next
 * to the confusion a shared broker causes (topics and consumer groups left by another class,
 * a restart test pulling the broker from under its neighbours). Give each test its own topic names
 * within a class. {@link org.junit.jupiter.api.Nested @Nested} classes reuse their enclosing
 * class's broker.
 *
 * <p>Two ways to use it:
 * <pre>{@code
 * @RegisterExtension
 * static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();
 * ... KAFKA.broker().createTopics(3, "in");  KAFKA.bootstrapServers() ...
 * }</pre>
 * (the field must be static, otherwise JUnit never calls {@code beforeAll}), or
 * {@code @ExtendWith(KafkaBrokerExtension.class)} and an {@link EmbeddedKafka} parameter on a
 * constructor, a {@code @BeforeAll}/{@code @BeforeEach} method or a test method. Broker settings
 * go through {@link #KafkaBrokerExtension(EmbeddedKafka.Builder)}.
 */
public final class KafkaBrokerExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(KafkaBrokerExtension.class);
    private static final String KEY = "broker";

    private final EmbeddedKafka.Builder builder;
    private volatile EmbeddedKafka broker;

    /** A broker with the {@link EmbeddedKafka#builder()} defaults. */
    public KafkaBrokerExtension() {
        this(EmbeddedKafka.builder());
    }

    /** A broker built by {@code builder} (e.g. with extra broker properties). */
    public KafkaBrokerExtension(EmbeddedKafka.Builder builder) {
        this.builder = builder;
    }

    /** The running broker of the current test class. */
    public EmbeddedKafka broker() {
        EmbeddedKafka b = broker;
        if (b == null) {
            throw new IllegalStateException("no broker: register KafkaBrokerExtension on a static field"
                    + " (@RegisterExtension static) so that it starts before the tests");
        }
        return b;
    }

    /** Shorthand for {@code broker().bootstrapServers()}. */
    public String bootstrapServers() {
        return broker().bootstrapServers();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        EmbeddedKafka inherited = context.getStore(NAMESPACE).get(KEY, EmbeddedKafka.class);
        if (inherited != null) {
            // a @Nested class: its enclosing class's broker is still running
            broker = inherited;
            return;
        }
        EmbeddedKafka started = builder.build().start();
        context.getStore(NAMESPACE).put(KEY, started);
        broker = started;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        // remove() only sees this context's own store, so a @Nested class leaves its parent's broker alone
        EmbeddedKafka own = context.getStore(NAMESPACE).remove(KEY, EmbeddedKafka.class);
        if (own != null) {
            if (broker == own) {
                broker = null;
            }
            own.close();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == EmbeddedKafka.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        EmbeddedKafka b = extensionContext.getStore(NAMESPACE).get(KEY, EmbeddedKafka.class);
        return b != null ? b : broker();
    }
}
