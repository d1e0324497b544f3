package io.skewguard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.AgentSettings;
import io.skewguard.balancer.BalancerSettings;
import io.skewguard.detector.DetectorSettings;
import io.skewguard.migrator.MigratorSettings;
import io.skewguard.runtime.acls.AclPlan;
import io.skewguard.runtime.acls.AclsCommand;
import io.skewguard.runtime.settings.CommonSettings;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ACL plan lives in runtime, which knows no app; the names it derives ACLs from must be the
 * ones the apps really use, or a default deployment would be refused by its own broker.
 */
class AclPlanAgreesWithTheAppsTest {

    @Test
    void defaultApplicationIdsAreTheAppsDefaults() {
        assertThat(AclsCommand.MODEL.setting(AclsCommand.DETECTOR_APPLICATION_ID).defaultValue())
                .isEqualTo(DetectorSettings.MODEL.setting(CommonSettings.APPLICATION_ID).defaultValue());
        assertThat(AclsCommand.MODEL.setting(AclsCommand.BALANCER_APPLICATION_ID).defaultValue())
                .isEqualTo(BalancerSettings.MODEL.setting(CommonSettings.APPLICATION_ID).defaultValue());
        assertThat(AclsCommand.MODEL.setting(AclsCommand.MIGRATOR_APPLICATION_ID).defaultValue())
                .isEqualTo(MigratorSettings.MODEL.setting(CommonSettings.APPLICATION_ID).defaultValue());
    }

    @Test
    void anAgentsGroupIsTheOneItsLinesAllow() {
        AgentSettings agent = AgentSettings.defaults("c1", "n7", Path.of("n7.state"), Map.of());

        assertThat(AclPlan.AGENT_GROUP_PREFIX + "n7").isEqualTo(agent.groupId());
    }

    @Test
    void theDetectorsIngestGroupAndPartialsTopicAreUnderItsApplicationId() {
        DetectorSettings detector = DetectorSettings.of(Map.of());

        assertThat(detector.ingestGroupId()).startsWith(detector.applicationId());
        assertThat(detector.partialsTopic()).startsWith(detector.applicationId());
    }
}
