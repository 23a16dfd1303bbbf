package dev.resurfacer.iceberg.maintain;

import dev.resurfacer.iceberg.compact.CondenseReadout;
import dev.resurfacer.iceberg.compact.Condensing;
import dev.resurfacer.iceberg.deletes.DanglingDeletes;
import dev.resurfacer.iceberg.deletes.DanglingDeletesReadout;
import dev.resurfacer.iceberg.deletes.DeletionVectorRewrite;
import dev.resurfacer.iceberg.deletes.DeletionVectorRewriteReadout;
import dev.resurfacer.iceberg.deletes.EqualityDeleteConversion;
import dev.resurfacer.iceberg.deletes.EqualityDeleteConversionReadout;
import dev.resurfacer.iceberg.deletes.PositionDeleteRewrite;
import dev.resurfacer.iceberg.deletes.PositionDeleteRewriteReadout;
import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.ExpireReadout;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.manifests.ManifestRewriteReadout;
import dev.resurfacer.iceberg.manifests.ManifestRewriteResult;
import dev.resurfacer.iceberg.manifests.ManifestRewriter;
import dev.resurfacer.iceberg.orphans.Inventory;
import dev.resurfacer.iceberg.orphans.OrphanReadout;
import dev.resurfacer.iceberg.orphans.OrphanRemoval;
import dev.resurfacer.iceberg.retention.MetadataRetention;
import dev.resurfacer.iceberg.retention.MetadataRetentionReadout;
import dev.resurfacer.iceberg.stats.PartitionStats;
import dev.resurfacer.iceberg.stats.PartitionStatsReadout;
import dev.resurfacer.iceberg.stats.TableStatistics;
import dev.resurfacer.iceberg.stats.TableStatisticsReadout;
import dev.resurfacer.iceberg.upgrade.FormatUpgrade;
import dev.resurfacer.iceberg.upgrade.FormatUpgradeReadout;
import dev.resurfacer.maintain.ApplyRetention;
import dev.resurfacer.maintain.ComputePartitionStats;
import dev.resurfacer.maintain.ComputeStats;
import dev.resurfacer.maintain.Condense;
import dev.resurfacer.maintain.ConvertEqualityDeletes;
import dev.resurfacer.maintain.ExpireSnapshots;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.maintain.RemoveDanglingDeletes;
import dev.resurfacer.maintain.RemoveOrphans;
import dev.resurfacer.maintain.RewriteManifests;
import dev.resurfacer.maintain.RewritePositionDeletes;
import dev.resurfacer.maintain.UpgradeFormat;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.Readout;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * The verbs the local engine runs on one Iceberg table at a time ({@link IcebergTarget#act}), one handler per
 * operation: each plans with its verb's library class, previews or acts as the mode says, and returns what
 * the command prints.
 */
final class LocalVerbs {
  private LocalVerbs() {}

  /**
   * One verb's run on an open table.
   *
   * @param progress told of the deletes of a run that acts
   * @param show how many files the text form lists by name
   * @param warnings told of each warning as soon as it is known
   */
  record Run(
      IcebergTable table, Mode mode, Progress progress, int show, Consumer<String> warnings) {
    boolean acts() {
      return mode == Mode.COMMIT;
    }
  }

  /** The handler of one operation type. */
  record Verb<O extends Operation>(Class<O> operation, BiFunction<O, Run, Readout> handler) {
    Readout act(Operation given, Run run) {
      return handler.apply(operation.cast(given), run);
    }
  }

  private static final List<Verb<?>> VERBS = List.of(
      new Verb<>(UpgradeFormat.class, LocalVerbs::upgrade),
      new Verb<>(ApplyRetention.class, LocalVerbs::applyRetention),
      new Verb<>(Condense.class, LocalVerbs::condense),
      new Verb<>(RemoveDanglingDeletes.class, LocalVerbs::removeDanglingDeletes),
      new Verb<>(ConvertEqualityDeletes.class, LocalVerbs::convertEqualityDeletes),
      new Verb<>(RewritePositionDeletes.class, LocalVerbs::rewritePositionDeletes),
      new Verb<>(ExpireSnapshots.class, LocalVerbs::expire),
      new Verb<>(RemoveOrphans.class, LocalVerbs::removeOrphans),
      new Verb<>(RewriteManifests.class, LocalVerbs::rewriteManifests),
      new Verb<>(ComputeStats.class, LocalVerbs::computeStats),
      new Verb<>(ComputePartitionStats.class, LocalVerbs::computePartitionStats));

  /** The handler of {@code operation}; empty for one this format does not run as a single verb. */
  static Optional<Verb<?>> of(Operation operation) {
    return VERBS.stream().filter(v -> v.operation() == operation.getClass()).findFirst();
  }

  private static Readout expire(ExpireSnapshots expire, Run run) {
    IcebergTable t = run.table();
    // every configured catalog's tables, of both formats: a file shared with one of them is not
    // this expiry's to delete
    SnapshotExpiry.Plan plan =
        SnapshotExpiry.plan(t.name(), t.table(), ExpireOptions.of(expire), t.otherTables(null));
    return new ExpireReadout(
        run.acts() ? SnapshotExpiry.execute(plan, run.progress()) : plan.preview());
  }

  private static Readout removeOrphans(RemoveOrphans orphans, Run run) {
    IcebergTable t = run.table();
    OrphanRemoval removal = OrphanRemoval.of(t.catalog(), t.identifier(), t.table())
        .olderThan(orphans.olderThan())
        .show(run.show())
        .quarantine(orphans.quarantine())
        .quarantineRetention(orphans.quarantineRetention())
        .onWarning(run.warnings())
        .progress(run.progress())
        .fences(t.fences());
    if (orphans.listing() != null) {
      removal = removal.listing(Inventory.open(orphans.listing(), t.table().io()));
    }
    return new OrphanReadout(run.acts() ? removal.execute() : removal.plan());
  }

  private static Readout rewriteManifests(RewriteManifests rewrite, Run run) {
    IcebergTable t = run.table();
    ManifestRewriter.Plan plan = ManifestRewriter.plan(t.name(), t.table(), rewrite.sortBy());
    ManifestRewriteResult result = run.acts() ? ManifestRewriter.execute(plan) : plan.preview();
    return new ManifestRewriteReadout(result, run.acts());
  }

  private static Readout computeStats(ComputeStats stats, Run run) {
    TableStatistics.Plan plan = TableStatistics.plan(run.table().table(), stats.columns());
    return new TableStatisticsReadout(run.acts() ? TableStatistics.execute(plan) : plan.preview());
  }

  private static Readout computePartitionStats(ComputePartitionStats stats, Run run) {
    PartitionStats.Plan plan = PartitionStats.plan(run.table().table());
    return new PartitionStatsReadout(run.acts() ? PartitionStats.execute(plan) : plan.preview());
  }

  private static Readout applyRetention(ApplyRetention retention, Run run) {
    MetadataRetention.Plan plan = MetadataRetention.plan(
        run.table().table(), retention.keep(), retention.deleteAfterCommit());
    return new MetadataRetentionReadout(
        run.acts() ? MetadataRetention.execute(plan) : plan.preview(), run.acts());
  }

  private static Readout condense(Condense condense, Run run) {
    Condensing.Plan plan = Condensing.plan(run.table().table(), condense);
    return new CondenseReadout(
        run.acts() ? Condensing.execute(plan) : plan.preview(), condense.olderThan(), run.acts());
  }

  private static Readout removeDanglingDeletes(RemoveDanglingDeletes remove, Run run) {
    DanglingDeletes.Plan plan =
        DanglingDeletes.plan(run.table().name(), run.table().table());
    return new DanglingDeletesReadout(
        run.acts() ? DanglingDeletes.execute(plan) : plan.preview(), run.acts());
  }

  private static Readout convertEqualityDeletes(ConvertEqualityDeletes convert, Run run) {
    EqualityDeleteConversion.Plan plan =
        EqualityDeleteConversion.plan(run.table().table());
    return new EqualityDeleteConversionReadout(
        run.acts() ? EqualityDeleteConversion.execute(plan) : plan.preview());
  }

  /** Format v3 tables get deletion vectors; v2 tables get their position-delete files compacted. */
  private static Readout rewritePositionDeletes(RewritePositionDeletes rewrite, Run run) {
    if (PositionDeleteRewrite.carriesDeletionVectors(run.table().table())) {
      DeletionVectorRewrite.Plan plan = DeletionVectorRewrite.plan(run.table().table());
      return new DeletionVectorRewriteReadout(
          run.acts() ? DeletionVectorRewrite.execute(plan) : plan.preview());
    }
    PositionDeleteRewrite.Plan plan =
        PositionDeleteRewrite.plan(run.table().table(), rewrite.options());
    return new PositionDeleteRewriteReadout(
        run.acts() ? PositionDeleteRewrite.execute(plan) : plan.preview());
  }

  private static Readout upgrade(UpgradeFormat upgrade, Run run) {
    FormatUpgrade.Plan plan = FormatUpgrade.plan(run.table().table(), upgrade.formatVersion());
    return new FormatUpgradeReadout(run.acts() ? FormatUpgrade.execute(plan) : plan.preview());
  }
}
