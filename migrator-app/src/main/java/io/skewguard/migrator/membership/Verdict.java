package io.skewguard.migrator.membership;

import io.skewguard.schemas.NodeMembership;
import java.util.List;

/** What {@link MembershipRules} decides for a {@link NodeChange}. */
public sealed interface Verdict {

    /** Lines for the operator: the current state and what will happen. */
    List<String> lines();

    /** Write {@code record}; {@code lines} say what will happen. */
    record Write(List<String> lines, NodeMembership record) implements Verdict {
        public Write {
            lines = List.copyOf(lines);
        }
    }

    /** Nothing to write: the node is already where the operator asks (exit code 0). */
    record Unchanged(List<String> lines) implements Verdict {
        public Unchanged {
            lines = List.copyOf(lines);
        }
    }

    /** The change is refused, for the reason in {@code line}; nothing is written (exit code 2). */
    record Refused(String line) implements Verdict {
        @Override
        public List<String> lines() {
            return List.of(line);
        }
    }
}
