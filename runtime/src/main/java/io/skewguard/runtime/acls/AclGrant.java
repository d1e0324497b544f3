package io.skewguard.runtime.acls;

import java.util.Locale;
import java.util.Objects;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * One line of an {@link AclPlan}: a role's principal may do {@code operation} on a resource (from any
 * host), and why the role needs it.
 *
 * @param role      the SkewGuard role: {@code detector}, {@code balancer}, {@code migrator} or {@code agent <node>}
 * @param principal the Kafka principal, e.g. {@code User:skewguard-detector}
 * @param resource  the topic, group, transactional id or cluster, by name or by name prefix
 * @param operation what the principal may do on it
 * @param reason    why the role needs it, for the printed table and docs/security.md
 */
public record AclGrant(String role, String principal, ResourcePattern resource, AclOperation operation, String reason) {

    public AclGrant {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(reason, "reason");
    }

    /** The ALLOW binding Kafka's admin client creates for this line. */
    public AclBinding binding() {
        return new AclBinding(resource, new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }

    /** {@code topic skew.alerts}, {@code group prefix skewguard-detector}, {@code transactional-id prefix …}. */
    public String resourceText() {
        String type = switch (resource.resourceType()) {
            case TRANSACTIONAL_ID -> "transactional-id";
            default -> resource.resourceType().name().toLowerCase(Locale.ROOT);
        };
        if (resource.resourceType() == ResourceType.CLUSTER) {
            return type;
        }
        return type + (resource.patternType() == PatternType.PREFIXED ? " prefix " : " ") + resource.name();
    }

    /** {@code DESCRIBE_CONFIGS} as {@code DescribeConfigs}, the spelling of {@code kafka-acls.sh --operation}. */
    public String operationText() {
        StringBuilder b = new StringBuilder();
        for (String word : operation.name().split("_")) {
            b.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
        }
        return b.toString();
    }
}
