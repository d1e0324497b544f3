package io.skewguard.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TopicsTest {

  @Test
  void defaultsAreTheTopicsOfDesignSectionEight() {
    assertThat(Topics.defaults().all()).containsExactly(
        "skew.node-writes", "skew.node-capacity", "skew.reports", "skew.alerts", "skew.weight-commands",
        "skew.node-weights", "skew.migration-commands", "skew.migration-status", "skew.slot-table", "skew.membership", "skew.control",
        "skew.proposals", "skew.decisions", "skew.dlq");
    assertThat(Topics.defaults().compacted()).containsExactly("skew.node-weights", "skew.slot-table", "skew.membership",
        "skew.control");
  }

  @Test
  void prefixReplacesSkewDotEverywhere() {
    Topics topics = new Topics("team-a.test_");
    assertThat(topics.nodeWrites()).isEqualTo("team-a.test_node-writes");
    assertThat(topics.dlq()).isEqualTo("team-a.test_dlq");
    assertThat(topics.all()).allMatch(t -> t.startsWith("team-a.test_")).hasSize(14).doesNotHaveDuplicates();
    assertThat(new Topics("").slotTable()).isEqualTo("slot-table");
  }

  @Test
  void prefixWithCharactersKafkaRejectsFailsEarly() {
    assertThatThrownBy(() -> new Topics("skew/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("skew/");
    assertThatThrownBy(() -> new Topics(null)).isInstanceOf(NullPointerException.class);
  }
}
