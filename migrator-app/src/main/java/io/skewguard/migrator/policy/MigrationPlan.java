package io.skewguard.migrator.policy;

import java.util.List;

/**
 * What the planner proposes.
 *
 * @param moves ordered moves; empty when balanced or when no move helps
 * @param currentCv capacity CV of the input
 * @param projectedCv capacity CV once every move is done
 * @param targetCv the CV the plan aims for
 * @param outcome why the plan stops where it does
 */
public record MigrationPlan(List<Move> moves, double currentCv, double projectedCv, double targetCv, Outcome outcome) {

    public MigrationPlan {
        moves = List.copyOf(moves);
    }

    /** Why a plan ends. */
    public enum Outcome {
        /** The input is already at or below the target CV: nothing to do. */
        BALANCED,
        /** The moves bring the projected CV to or below the target. */
        REACHES_TARGET,
        /** The target is out of reach: after these moves (possibly none) no move improves the CV. */
        NO_IMPROVING_MOVE
    }

    /** Total bytes the plan moves. */
    public long bytesMoved() {
        long sum = 0;
        for (Move m : moves) {
            sum += m.bytes();
        }
        return sum;
    }
}
