package io.skewguard.migrator.membership;

import java.util.List;

/**
 * What an operator command's rules decide ({@link MembershipRules} for {@code node},
 * {@code ControlRules} for {@code ctl}): write a record, write nothing, or refuse.
 *
 * @param <R> the record an operator writes (a {@code NodeMembership}, an {@code OperatorControl})
 */
public sealed interface Verdict<R> {

    /** Lines for the operator: the current state and what will happen. */
    List<String> lines();

    /** Write {@code record}; {@code lines} say what will happen. */
    record Write<R>(List<String> lines, R record) implements Verdict<R> {
        public Write {
            lines = List.copyOf(lines);
        }
    }

    /** Nothing to write: the cluster is already where the operator asks (exit code 0). */
    record Unchanged<R>(List<String> lines) implements Verdict<R> {
        public Unchanged {
            lines = List.copyOf(lines);
        }
    }

    /** The change is refused, for the reason in {@code line}; nothing is written (exit code 2). */
    record Refused<R>(String line) implements Verdict<R> {
        @Override
        public List<String> lines() {
            return List.of(line);
        }
    }
}
