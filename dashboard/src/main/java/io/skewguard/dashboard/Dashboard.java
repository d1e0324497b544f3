package io.skewguard.dashboard;

import io.skewguard.schemas.Topics;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The live dashboard: follows the loop's topics ({@link TopicFeed}) into a bounded per-cluster view
 * ({@link ClusterViews}) and serves it as a page that updates without reload ({@link DashboardServer}).
 * Started by {@code skewguard dashboard} ({@link DashboardCommand}) and by the demo.
 */
public final class Dashboard implements AutoCloseable {

    private final ClusterViews views;
    private final TopicFeed feed;
    private final DashboardServer server;

    private Dashboard(ClusterViews views, TopicFeed feed, DashboardServer server) {
        this.views = views;
        this.feed = feed;
        this.server = server;
    }

    /**
     * Starts following the topics and serving.
     *
     * @param consumerProperties Kafka consumer keys (bootstrap servers, security); no group is used
     * @param serdeConfig the registry settings of the project's serde
     * @param cluster the one cluster to show, or null for every cluster
     * @param host address to listen on (127.0.0.1 keeps it on this machine)
     * @param port port to listen on; 0 picks a free one ({@link #url()} tells which)
     * @throws IllegalStateException when a topic is missing
     * @throws java.io.UncheckedIOException when the address cannot be bound
     */
    public static Dashboard start(Properties consumerProperties, Map<String, Object> serdeConfig, Topics topics, String cluster,
                                  ViewLimits limits, String host, int port) {
        ClusterViews views = new ClusterViews(limits, cluster);
        TopicFeed feed = new TopicFeed(consumerProperties, serdeConfig, topics, views);
        try {
            feed.start();
        } catch (RuntimeException e) {
            feed.close();
            throw e;
        }
        try {
            return new Dashboard(views, feed, DashboardServer.start(host, port, views));
        } catch (RuntimeException e) {
            feed.close();
            throw e;
        }
    }

    /** The page's address, e.g. {@code http://127.0.0.1:8088/}. */
    public String url() {
        InetSocketAddress a = server.address();
        String host = a.getAddress().isAnyLocalAddress() ? "127.0.0.1" : a.getHostString();
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort() + "/";
    }

    /** Why the dashboard stopped following the topics, if it did. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(feed.failure());
    }

    /** The current picture of {@code cluster}, if a record of it has been read. */
    public Optional<ClusterSnapshot> snapshot(String cluster) {
        return views.snapshot(cluster);
    }

    @Override
    public void close() {
        server.close();
        feed.close();
    }
}
