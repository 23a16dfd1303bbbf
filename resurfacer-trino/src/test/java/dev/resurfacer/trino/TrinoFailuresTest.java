package dev.resurfacer.trino;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import java.net.ConnectException;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Trino's answers as one line: the exact messages Trino 47x returns, turned into our exceptions. */
class TrinoFailuresTest {
  static final TrinoConnection TRINO =
      new TrinoConnection("jdbc:trino://trino:8080", "lake", "u", "secret-password", null);

  @Test
  void aRetentionFloorBecomesARefusalNamingTheSetting() {
    RuntimeException e = TrinoFailures.translate(
        TRINO,
        "vacuum",
        new SQLException(
            "Query failed (#20261130_1): Retention specified"
                + " (1.00s) is shorter than the minimum retention configured in the system (7.00d). Minimum retention can be changed with"
                + " delta.vacuum.min-retention configuration property or lake.vacuum_min_retention session property"));
    assertThat(e)
        .isInstanceOf(SafetyRefusal.class)
        .hasMessage("Trino refuses vacuum with retention 1.00s: its floor"
            + " delta.vacuum.min-retention is 7.00d on catalog lake (lower that setting or the session property lake.vacuum_min_retention,"
            + " or ask for at least 7.00d)");
  }

  @Test
  void unreachableMissingAndDeniedAreUsageErrorsWithoutSecrets() {
    SQLException down = new SQLException(
        "Error executing query", new ConnectException("Failed to connect to trino/10.0.0.1:8080"));
    assertThat(TrinoFailures.translate(TRINO, "connect", down))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "cannot reach Trino at jdbc:trino://trino:8080: Failed to connect to trino/10.0.0.1:8080");
    assertThat(TrinoFailures.translate(
            TRINO,
            "optimize",
            new SQLException("Query failed (#1): line 1:13: Table 'lake.db.t' does not exist")))
        .isInstanceOf(UsageException.class)
        .hasMessage("Trino at jdbc:trino://trino:8080: Table 'lake.db.t' does not exist");
    RuntimeException denied = TrinoFailures.translate(
        TRINO,
        "optimize",
        new SQLException(
            "Query failed (#1): Access Denied: Cannot execute table procedure OPTIMIZE on lake.db.t"));
    assertThat(denied)
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("denied optimize to user u");
    assertThat(denied.getMessage() + TRINO).doesNotContain("secret-password");
    assertThat(
            TrinoFailures.translate(TRINO, "optimize", new SQLException("Query failed (#1): boom")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Trino optimize failed: boom");
  }

  @Test
  void trinoDurationsAsItPrintsThem() {
    assertThat(TrinoFloors.parse("7.00d")).isEqualTo(Duration.ofDays(7));
    assertThat(TrinoFloors.parse("0.00s")).isEqualTo(Duration.ZERO);
    assertThat(TrinoFloors.parse("1.50h")).isEqualTo(Duration.ofMinutes(90));
    assertThat(TrinoFloors.parse("250ms")).isEqualTo(Duration.ofMillis(250));
  }
}
