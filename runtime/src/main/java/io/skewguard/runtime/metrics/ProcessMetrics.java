package io.skewguard.runtime.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The one metrics registry of this process, scraped by the health endpoint's {@code /metrics}.
 *
 * <p>One per JVM, not one per app object: the series are set deep inside processors and loops
 * (a topology is built long before and far from the lifecycle that serves the endpoint), and a
 * process runs one app. Embedders that run several apps in one JVM (the demo) get every app's
 * series in one registry, told apart by their names and labels. Nothing here ever fails a
 * caller: recording a value is a map lookup and an atomic update.
 */
public final class ProcessMetrics {

    /** Prometheus' text format, the content type {@code /metrics} answers with. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private static final PrometheusMeterRegistry REGISTRY = create();

    private ProcessMetrics() {
    }

    private static PrometheusMeterRegistry create() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        // the JVM's own figures: what an operator looks at first when an app lags
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        return registry;
    }

    /** The registry every series of this process is registered in. */
    public static MeterRegistry registry() {
        return REGISTRY;
    }

    /** Every series now, in Prometheus text format. */
    public static String scrape() {
        return REGISTRY.scrape();
    }
}
