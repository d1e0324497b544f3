package io.skewguard.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an app's {@code GET /metrics} answered once (Prometheus text format), and the value of a
 * series in it: for tests that scrape a running app as Prometheus would.
 *
 * @param text the answer; empty when the endpoint did not answer 200
 */
public record PrometheusScrape(String text) {

    private static final Pattern SAMPLE = Pattern.compile("(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{([^}]*)})?\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /**
     * Scrapes {@code http://127.0.0.1:healthPort/metrics}; an endpoint that does not answer gives an
     * empty scrape, and so does an interrupt (the thread stays interrupted, so that a wait for a
     * condition on the scrape ends), which lets it be a condition polled in a lambda.
     */
    public static PrometheusScrape of(int healthPort) {
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + healthPort + "/metrics"))
                .timeout(Duration.ofSeconds(10)).build();
        try {
            HttpResponse<String> answer = HTTP.send(get, HttpResponse.BodyHandlers.ofString());
            return new PrometheusScrape(answer.statusCode() == 200 ? answer.body() : "");
        } catch (IOException notAnswering) {
            return new PrometheusScrape("");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new PrometheusScrape("");
        }
    }

    /**
     * The value of the first sample of series {@code name} whose labels include {@code labels}
     * (name-value pairs: {@code "cluster", "c1"}); empty if there is none or its value is not a
     * number (NaN counts as none: a gauge without a value yet).
     */
    public OptionalDouble value(String name, String... labels) {
        if (labels.length % 2 != 0) {
            throw new IllegalArgumentException("labels come in name-value pairs: " + String.join(", ", labels));
        }
        Matcher sample = SAMPLE.matcher(text);
        while (sample.find()) {
            if (!sample.group(1).equals(name) || !hasLabels(sample.group(2), labels)) {
                continue;
            }
            try {
                double v = Double.parseDouble(sample.group(3));
                if (!Double.isNaN(v)) {
                    return OptionalDouble.of(v);
                }
            } catch (NumberFormatException notANumber) {
                // +Inf and -Inf parse; anything else is not a value
            }
        }
        return OptionalDouble.empty();
    }

    /** Whether series {@code name} with {@code labels} has a value. */
    public boolean has(String name, String... labels) {
        return value(name, labels).isPresent();
    }

    /**
     * The series of {@code wanted} that have no value, each written as in the scrape without a value:
     * {@code skewguard_heat_gini{cluster="c1"}} (labels not named may be anything), or a bare name.
     */
    public List<String> missing(Collection<String> wanted) {
        List<String> missing = new ArrayList<>();
        for (String series : wanted) {
            Matcher spec = SAMPLE.matcher(series + " 0");
            if (!spec.matches()) {
                throw new IllegalArgumentException("not a series: " + series);
            }
            List<String> labels = new ArrayList<>();
            if (spec.group(2) != null) {
                Matcher label = LABEL.matcher(spec.group(2));
                while (label.find()) {
                    labels.add(label.group(1));
                    labels.add(label.group(2));
                }
            }
            if (!has(spec.group(1), labels.toArray(String[]::new))) {
                missing.add(series);
            }
        }
        return missing;
    }

    private static boolean hasLabels(String labelText, String[] wanted) {
        Map<String, String> labels = new HashMap<>();
        if (labelText != null) {
            Matcher label = LABEL.matcher(labelText);
            while (label.find()) {
                labels.put(label.group(1), label.group(2));
            }
        }
        for (int i = 0; i < wanted.length; i += 2) {
            if (!wanted[i + 1].equals(labels.get(wanted[i]))) {
                return false;
            }
        }
        return true;
    }
}
