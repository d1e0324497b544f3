package io.skewguard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.service.AgentServiceSettings;
import io.skewguard.balancer.BalancerSettings;
import io.skewguard.dashboard.DashboardCommand;
import io.skewguard.detector.DetectorSettings;
import io.skewguard.migrator.MigratorSettings;
import io.skewguard.migrator.membership.NodeCommand;
import io.skewguard.runtime.acls.AclsCommand;
import io.skewguard.runtime.settings.SettingsModel;
import io.skewguard.runtime.settings.SettingsReference;
import io.skewguard.runtime.topics.TopicPlan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/configuration.md} is written from the settings models; this test fails when the
 * committed file says anything else (a setting added, renamed, given another default or doc).
 * Regenerate with {@code -Dskewguard.docs.write=true} (the command is in the file's header).
 */
class ConfigurationReferenceTest {

    /** Every model of a command a user runs, in the order of the reference. */
    static final List<SettingsModel> MODELS = List.of(DetectorSettings.MODEL, BalancerSettings.MODEL, MigratorSettings.MODEL,
            AgentServiceSettings.MODEL, TopicPlan.MODEL, NodeCommand.MODEL, io.skewguard.migrator.control.CtlCommand.MODEL,
            AclsCommand.MODEL, DashboardCommand.MODEL);

    static final Path REFERENCE = Path.of("..", "docs", "configuration.md");

    @Test
    void docsConfigurationMdIsTheReferenceTheModelsWrite() throws Exception {
        String expected = SettingsReference.markdown(MODELS);
        if (Boolean.getBoolean("skewguard.docs.write")) {
            Files.writeString(REFERENCE, expected);
        }
        assertThat(REFERENCE).as("docs/configuration.md is stale: regenerate it with the command in its header").exists();
        assertThat(Files.readString(REFERENCE))
                .as("docs/configuration.md is stale: regenerate it with the command in its header")
                .isEqualTo(expected);
    }

    @Test
    void everyModelNamesItsAppAndEverySettingHasADoc() {
        for (SettingsModel m : MODELS) {
            assertThat(m.description()).as(m.app() + " description").isNotBlank();
            m.settings().forEach(s -> assertThat(s.doc()).as(m.app() + " " + s.name()).isNotBlank());
        }
    }
}
