package io.skewguard.migrator;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;

/** One decoded input record, on its way to the coordinator of its cluster. */
sealed interface MigratorInput {

    String cluster();

    record Alert(SkewAlert value) implements MigratorInput {
        public String cluster() {
            return value.getCluster();
        }
    }

    record Report(SkewReport value) implements MigratorInput {
        public String cluster() {
            return value.getCluster();
        }
    }

    record Capacity(CapacityEvent value) implements MigratorInput {
        public String cluster() {
            return value.getCluster();
        }
    }

    record Status(MigrationStatus value) implements MigratorInput {
        public String cluster() {
            return value.getCluster();
        }
    }

    /** An operator's membership record (the migrator's own are dropped by the decoder). */
    record Membership(NodeMembership value) implements MigratorInput {
        public String cluster() {
            return value.getCluster();
        }
    }

    /** An operator's control record, checked ({@code ControlRecords.problem}) before it gets here. */
    record Control(io.skewguard.schemas.OperatorControl value) implements MigratorInput {
        public String cluster() {
            return value.getCluster();
        }
    }

    /** A record that could not be decoded or failed validation: raw bytes for the dead-letter topic. */
    record Rejected(byte[] key, byte[] value, String reason) implements MigratorInput {
        public String cluster() {
            return null;
        }
    }
}
