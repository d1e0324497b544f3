/**
 * What a SkewGuard process shows on {@code GET /metrics}: one Micrometer registry per process in
 * Prometheus text format ({@link io.skewguard.runtime.metrics.ProcessMetrics}), Kafka's own client
 * and Streams metrics bridged into it, and SkewGuard's {@code skewguard_…} series, which the apps
 * set where they already log or emit (docs/operations.md, "Metrics and health").
 */
package io.skewguard.runtime.metrics;
