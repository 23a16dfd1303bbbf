package dev.resurfacer.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.report.OperationResult;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.report.RunReport;
import dev.resurfacer.report.TableReport;
import dev.resurfacer.report.TableStats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The runner's rules for what a step reports and which steps run after one fails, on an engine
 * whose executors do what each case needs: a commit run never reports {@code previewed}; a failed
 * or refused step leaves later steps running, except those that delete by age with a guard no
 * longer than the table's run so far.
 */
class StepOutcomeRulesTest {
  /** One table, "db.t"; each executor records that it ran. */
  static final class FakeFormat implements TableFormat<String> {
    final List<String> ran = Collections.synchronizedList(new ArrayList<>());
    final Map<Class<?>, Step> steps;
    final Map<Class<?>, RuntimeException> throwing;
    final Optional<Duration> tableRetention;

    FakeFormat(
        Map<Class<?>, Step> steps,
        Map<Class<?>, RuntimeException> throwing,
        Optional<Duration> tableRetention) {
      this.steps = steps;
      this.throwing = throwing;
      this.tableRetention = tableRetention;
    }

    @Override
    public dev.resurfacer.formats.Format format() {
      return dev.resurfacer.formats.Format.ICEBERG;
    }

    @Override
    public FakeFormat withFences(dev.resurfacer.storage.StorageFences fences) {
      return this;
    }

    @Override
    public Class<String> handleType() {
      return String.class;
    }

    @Override
    public String catalogName() {
      return "lake";
    }

    @Override
    public List<String> allTables() {
      return List.of("db.t");
    }

    @Override
    public List<String> tablesIn(String namespace) {
      return allTables();
    }

    @Override
    public String open(String table) {
      return table;
    }

    @Override
    public void refresh(String table) {}

    @Override
    public TableStats stats(String table) {
      return new TableStats(0, 0, 0, 0, 0, 0, 0, 0, 0, List.of());
    }

    @Override
    public AutoCloseable lease(String table, String owner, Duration ttl) {
      return () -> {};
    }

    @Override
    public Optional<Duration> tableRetention(String table, Operation operation) {
      return tableRetention;
    }

    @Override
    public List<OperationExecutor<?, String>> builtInExecutors() {
      return List.of(
          executor(Compact.class),
          executor(RewriteManifests.class),
          executor(ExpireSnapshots.class),
          executor(RemoveOrphans.class),
          executor(Vacuum.class),
          executor(CleanupLog.class),
          executor(Checkpoint.class));
    }

    private <O extends Operation> OperationExecutor<O, String> executor(Class<O> type) {
      return new OperationExecutor<>() {
        @Override
        public Class<O> operationType() {
          return type;
        }

        @Override
        public Step execute(O op, String table, Mode mode) {
          ran.add(op.name());
          if (throwing.containsKey(type)) {
            throw throwing.get(type);
          }
          return steps.getOrDefault(
              type,
              mode == Mode.COMMIT
                  ? Step.done("did " + op.name(), Map.of())
                  : Step.previewed("would " + op.name(), Map.of()));
        }
      };
    }
  }

  private static TableReport run(FakeFormat engine, Maintain m, Mode mode) {
    RunReport report = new MaintenanceRunner<>(engine, List.of(), 1, Duration.ofHours(1))
        .run(MaintenancePlan.of(m), mode);
    return report.tables().get(0);
  }

  private static OperationResult op(TableReport t, String name) {
    return t.operations().stream()
        .filter(o -> o.operation().equals(name))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aCommitRunThatAnExecutorCallsPreviewedIsAFailureNamingTheExecutor() {
    FakeFormat engine = new FakeFormat(
        Map.of(
            RewriteManifests.class, Step.previewed("would rewrite 1 data manifest(s)", Map.of())),
        Map.of(),
        Optional.empty());
    TableReport t = run(
        engine,
        Maintain.table("db.t").rewriteManifests().expireSnapshots(Duration.ofDays(1), 1),
        Mode.COMMIT);

    OperationResult manifests = op(t, "rewrite-manifests");
    assertThat(manifests.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(manifests.message())
        .contains(StepOutcomeRulesTest.class.getName())
        .contains("reported previewed in a commit run")
        .contains("would rewrite 1 data manifest(s)");
    assertThat(t.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(t.operations()).noneMatch(o -> o.outcome() == Outcome.PREVIEWED);
    // expiry does not depend on the manifests: it still ran
    assertThat(op(t, "expire").outcome()).isEqualTo(Outcome.DONE);
  }

  @Test
  void aPreviewRunThatAnExecutorCallsDoneIsAFailureToo() {
    FakeFormat engine = new FakeFormat(
        Map.of(Compact.class, Step.done("rewrote", Map.of())), Map.of(), Optional.empty());
    TableReport t = run(engine, Maintain.table("db.t").compact(), Mode.PREVIEW);
    assertThat(op(t, "compact").outcome()).isEqualTo(Outcome.FAILED);
    assertThat(op(t, "compact").message()).contains("reported done in a preview run");
  }

  @Test
  void aFailedCompactionLeavesExpiryAndOrphanRemovalWithALongGuardRunning() {
    FakeFormat engine = new FakeFormat(
        Map.of(),
        Map.of(Compact.class, new IllegalStateException("group 0 failed")),
        Optional.empty());
    TableReport t = run(
        engine,
        Maintain.table("db.t")
            .compact()
            .rewriteManifests()
            .expireSnapshots(Duration.ofDays(5), 1)
            .removeOrphans(Duration.ofDays(3)),
        Mode.COMMIT);

    assertThat(engine.ran)
        .containsExactly("compact", "rewrite-manifests", "expire", "remove-orphans");
    assertThat(op(t, "compact").outcome()).isEqualTo(Outcome.FAILED);
    assertThat(op(t, "rewrite-manifests").outcome()).isEqualTo(Outcome.DONE);
    assertThat(op(t, "expire").outcome()).isEqualTo(Outcome.DONE);
    assertThat(op(t, "remove-orphans").outcome()).isEqualTo(Outcome.DONE);
    assertThat(t.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(t.message()).isEqualTo("compact failed: group 0 failed");
  }

  @Test
  void orphanRemovalWhoseGuardTheRunMayHaveOutlivedDoesNotRunAfterAFailure() {
    FakeFormat engine = new FakeFormat(
        Map.of(), Map.of(Compact.class, new IllegalStateException("boom")), Optional.empty());
    TableReport t = run(
        engine,
        Maintain.table("db.t")
            .compact()
            .expireSnapshots(Duration.ZERO, 1)
            .removeOrphans(Duration.ZERO),
        Mode.COMMIT);

    assertThat(engine.ran).containsExactly("compact", "expire");
    OperationResult orphans = op(t, "remove-orphans");
    assertThat(orphans.outcome()).isEqualTo(Outcome.SKIPPED);
    assertThat(orphans.message())
        .startsWith(
            "after compact failed, not run: its age guard (0s) is not longer than this table's run so far");
  }

  @Test
  void withoutAFailureAShortGuardRuns() {
    FakeFormat engine = new FakeFormat(Map.of(), Map.of(), Optional.empty());
    TableReport t =
        run(engine, Maintain.table("db.t").compact().removeOrphans(Duration.ZERO), Mode.COMMIT);
    assertThat(op(t, "remove-orphans").outcome()).isEqualTo(Outcome.DONE);
    assertThat(t.outcome()).isEqualTo(Outcome.DONE);
  }

  @Test
  void vacuumAndLogCleanupWithTheTablesRetentionAskTheEngineForIt() {
    FakeFormat unknown = new FakeFormat(
        Map.of(), Map.of(Compact.class, new SafetyRefusal("fence")), Optional.empty());
    TableReport t = run(
        unknown, Maintain.table("db.t").compact().vacuum().checkpoint().cleanupLog(), Mode.COMMIT);
    assertThat(op(t, "compact").outcome()).isEqualTo(Outcome.REFUSED);
    assertThat(op(t, "vacuum").outcome()).isEqualTo(Outcome.SKIPPED);
    assertThat(op(t, "vacuum").message())
        .isEqualTo("after compact refused, not run: its age guard is the table's own setting, which"
            + " could not be read");
    assertThat(op(t, "checkpoint").outcome()).isEqualTo(Outcome.DONE);
    assertThat(op(t, "cleanup-log").outcome()).isEqualTo(Outcome.SKIPPED);
    assertThat(t.outcome()).isEqualTo(Outcome.REFUSED);

    FakeFormat week = new FakeFormat(
        Map.of(),
        Map.of(Compact.class, new SafetyRefusal("fence")),
        Optional.of(Duration.ofDays(7)));
    TableReport w =
        run(week, Maintain.table("db.t").compact().vacuum().checkpoint().cleanupLog(), Mode.COMMIT);
    assertThat(week.ran).containsExactly("compact", "vacuum", "checkpoint", "cleanup-log");
    assertThat(op(w, "vacuum").outcome()).isEqualTo(Outcome.DONE);
  }

  @Test
  void aFailureOutranksARefusalAndTheTableMessageNamesThemAll() {
    FakeFormat engine = new FakeFormat(
        Map.of(),
        Map.of(
            Compact.class,
            new SafetyRefusal("fence"),
            ExpireSnapshots.class,
            new IllegalStateException("io")),
        Optional.empty());
    TableReport t = run(
        engine,
        Maintain.table("db.t")
            .compact()
            .expireSnapshots(Duration.ofDays(1), 1)
            .removeOrphans(Duration.ofDays(3)),
        Mode.COMMIT);
    assertThat(t.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(t.message()).isEqualTo("compact refused: fence (and expire failed)");
    assertThat(op(t, "remove-orphans").outcome()).isEqualTo(Outcome.DONE);
  }
}
