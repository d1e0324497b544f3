package io.skewguard.runtime.topics;

import java.util.List;

/**
 * What {@link TopicProvisioner#create} did.
 *
 * @param created the topics it created
 * @param alreadyThere the planned topics that existed before (left as they were)
 * @param differences how the topics now differ from the plan: only topics that were already there
 *     can differ, since SkewGuard never changes an existing topic
 */
public record Provisioned(List<TopicSpec> created, List<String> alreadyThere, List<TopicDifference> differences) {

    public Provisioned {
        created = List.copyOf(created);
        alreadyThere = List.copyOf(alreadyThere);
        differences = List.copyOf(differences);
    }

    /** Whether every planned topic now matches the plan. */
    public boolean matches() {
        return differences.isEmpty();
    }
}
