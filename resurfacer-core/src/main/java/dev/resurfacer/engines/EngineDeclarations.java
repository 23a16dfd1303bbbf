package dev.resurfacer.engines;

import static dev.resurfacer.engines.EngineCapability.refused;
import static dev.resurfacer.engines.EngineCapability.works;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What each execution engine runs, per table format and operation, and why it refuses the rest: the one
 * declaration. The engines' {@code capabilities()}, {@code resurfacer engines}, {@code doctor} and the table
 * in {@code docs/features.md} ({@link CapabilityTable}, checked by a test) all read it, so an operation that
 * lands is declared here once.
 */
public final class EngineDeclarations {
  public static final String LOCAL = "local";
  public static final String SPARK = "spark";
  public static final String TRINO = "trino";

  private EngineDeclarations() {}

  private static final List<EngineCapability> LOCAL_DECLARED = List.of(
      works(
          LOCAL,
          "iceberg",
          "compact",
          "bin-pack, sort, z-order; DuckDB or generic runner, verified"),
      works(LOCAL, "iceberg", "condense", "coarser spec for aged partitions; generic runner"),
      works(LOCAL, "iceberg", "remove-dangling-deletes", "core RemoveDanglingDeleteFilesAction"),
      works(LOCAL, "iceberg", "rewrite-position-deletes", "core planner and commit manager"),
      works(
          LOCAL,
          "iceberg",
          "convert-equality-deletes",
          "equality deletes into deletion vectors (v3) or position deletes (v2); validated RowDelta"),
      works(
          LOCAL,
          "iceberg",
          "compute-stats",
          "NDV theta sketches in a Puffin file on the current snapshot"),
      works(LOCAL, "iceberg", "compute-partition-stats", "core PartitionStatsHandler, incremental"),
      works(LOCAL, "iceberg", "rewrite-manifests", "core RewriteManifests, clustered by partition"),
      works(
          LOCAL, "iceberg", "expire", "core ExpireSnapshots, deletes exactly the previewed files"),
      works(
          LOCAL,
          "iceberg",
          "remove-orphans",
          "fenced: StoredFile identity, neighbours, re-read before delete"),
      works(LOCAL, "iceberg", "apply-retention", "metadata.json retention properties"),
      works(
          LOCAL, "iceberg", "upgrade", "core format-version upgrade, metadata only; no downgrade"),
      works(LOCAL, "delta", "compact", "bin-pack per partition, DV purge; Kernel, verified"),
      works(LOCAL, "delta", "vacuum", "full mode, tombstones from JSON commits, retention check"),
      works(LOCAL, "delta", "checkpoint", "Kernel checkpoint"),
      works(LOCAL, "delta", "cleanup-log", "log entries before an old complete checkpoint"));

  private static final List<EngineCapability> SPARK_DECLARED = List.of(
      works(
              SPARK,
              "iceberg",
              "compact",
              "rewrite_data_files (binpack, sort, zorder; same option names; --where and identity --partition as its where); local preview; content (row count + xxhash64 checksum of every row) checked on the cluster after Spark's commit, rolled back on a mismatch")
          .refusing(
              "layout",
              "compact.layout: auto runs on the local engine: advise simulates on a sample of the rows and records the layout it applies"),
      works(
              SPARK,
              "iceberg",
              "rewrite-manifests",
              "rewrite_manifests, clustered by whole partition (sort-by refused); local preview; content checked before/after")
          .refusing(
              "sort-by",
              "Iceberg's rewrite_manifests procedure takes no clustering fields, it clusters by whole partition"),
      works(
          SPARK,
          "iceberg",
          "expire",
          "expire_snapshots with the previewed cutoff and snapshot ids; refused when a file is referenced under two spellings"),
      works(
          SPARK,
          "iceberg",
          "remove-orphans",
          "remove_orphan_files as a dry run; our fences check each candidate and delete through the table's FileIO"),
      refused(
          SPARK,
          "iceberg",
          "remove-dangling-deletes",
          "Iceberg's Spark procedures have none on its own (only inside rewrite_data_files); run it with --engine local"),
      works(
          SPARK,
          "iceberg",
          "rewrite-position-deletes",
          "rewrite_position_delete_files (format v2; v3 deletion vectors are refused: --engine local converts to them); local preview; content checked on the cluster after Spark's commit, rolled back on a mismatch"),
      refused(
          SPARK,
          "iceberg",
          "condense",
          "Spark has no procedure for it; run it with --engine local"),
      refused(SPARK, "iceberg", "apply-retention", "metadata only; run it with --engine local"),
      refused(SPARK, "iceberg", "upgrade", "metadata only; run it with --engine local"),
      works(
              SPARK,
              "delta",
              "compact",
              "delta-spark's OPTIMIZE (bin-pack) and OPTIMIZE ... ZORDER BY on delta.`<location>`; local preview from our planner, with"
                  + " optimize.minFileSize/maxFileSize/maxDeletedRowsRatio set so delta-spark selects the same files (z-order: every file of"
                  + " every partition, as delta-spark does); same table checked first (id, version, files); content (row count + xxhash64"
                  + " checksum) checked on the cluster after its commit, restored on a mismatch. Refused: liquid-clustered tables, a lone"
                  + " file our plan rewrites only to purge deleted rows (delta-spark never does), --where/--partition, options without a"
                  + " delta-spark equivalent")
          .refusing(
              "layout",
              "compact.layout: auto runs on the local engine: advise simulates on a sample of the rows and records the layout it applies"),
      works(
              SPARK,
              "delta",
              "vacuum",
              "delta-spark's VACUUM ... FULL RETAIN n HOURS, run only when its DRY RUN lists nothing our own vacuum plan keeps (compared by"
                  + " file identity; e.g. _change_data files it would delete are refused); hours rounded up from the driver's clock so its"
                  + " cutoff is never later than ours; every file gone afterwards checked against our plan")
          .refusing(
              "lite",
              "the Spark route runs delta-spark's FULL mode against our plan; lite is not carried to it")
          .refusing("keep-versions", "delta-spark's VACUUM has no setting to keep chosen versions"),
      refused(
          SPARK,
          "delta",
          "checkpoint",
          "run it with --engine local (Kernel writes the checkpoint; delta-spark"
              + " checkpoints only on its own commits)"),
      refused(
          SPARK,
          "delta",
          "cleanup-log",
          "delta-spark has no log cleanup command (it trims the log on its own"
              + " checkpoints); run it with --engine local"));

  private static final List<EngineCapability> TRINO_DECLARED = List.of(
      works(
              TRINO,
              "iceberg",
              "compact",
              "ALTER TABLE ... EXECUTE optimize(file_size_threshold) [WHERE partition];"
                  + " bin-pack, or sort by the table's declared order only; no z-order; verified after Trino's commit (count + checksum), rolled back on mismatch")
          .refusing(
              "layout",
              "compact.layout: auto runs on the local engine: advise simulates on a sample of the rows and records the layout it applies"),
      works(
              TRINO,
              "iceberg",
              "rewrite-manifests",
              "EXECUTE optimize_manifests, clustered by whole partition (sort-by refused); rows checked after Trino's commit")
          .refusing(
              "sort-by",
              "Trino's optimize_manifests takes no clustering fields, it clusters by whole partition"),
      works(
          TRINO,
          "iceberg",
          "expire",
          "EXECUTE expire_snapshots(retention_threshold); our preview first (same core rule),"
              + " keeps history.expire.min-snapshots-to-keep (no retain-last); floor iceberg.expire-snapshots.min-retention"),
      works(
          TRINO,
          "iceberg",
          "remove-orphans",
          "EXECUTE remove_orphan_files(retention_threshold), no dry run: runs only when"
              + " every file Trino could delete is an orphan by our fences too; floor iceberg.remove-orphan-files.min-retention"),
      refused(
          TRINO,
          "iceberg",
          "remove-dangling-deletes",
          "Trino has no procedure for it (optimize applies deletes to the files it rewrites)"),
      refused(TRINO, "iceberg", "rewrite-position-deletes", "Trino has no procedure for it"),
      refused(
          TRINO, "iceberg", "condense", "Trino cannot rewrite into a non-default partition spec"),
      refused(
          TRINO,
          "iceberg",
          "apply-retention",
          "table properties, not a Trino procedure: use --engine local"),
      refused(TRINO, "iceberg", "upgrade", "metadata only; run it with --engine local"),
      works(
              TRINO,
              "delta",
              "compact",
              "ALTER TABLE ... EXECUTE optimize(file_size_threshold) on the delta-catalog;"
                  + " bin-pack only; preview from the log; verified after Trino's commit (count + checksum), not undone: Trino cannot restore")
          .refusing(
              "layout",
              "compact.layout: auto runs on the local engine: advise simulates on a sample of the rows and records the layout it applies"),
      works(
              TRINO,
              "delta",
              "vacuum",
              "CALL system.vacuum(schema, table, retention), no dry run: runs only when every"
                  + " file Trino could delete is in our own vacuum's plan; floor delta.vacuum.min-retention; tables with deletion vectors refused")
          .refusing("lite", "Trino's system.vacuum always lists the table; it has no lite mode")
          .refusing(
              "keep-versions", "Trino's system.vacuum has no setting to keep chosen versions"),
      refused(
          TRINO,
          "delta",
          "checkpoint",
          "Trino has no checkpoint procedure (it checkpoints on its own commits)"),
      refused(TRINO, "delta", "cleanup-log", "Trino has no log cleanup procedure"));

  private static final Map<String, List<EngineCapability>> BY_ENGINE =
      Map.of(LOCAL, LOCAL_DECLARED, SPARK, SPARK_DECLARED, TRINO, TRINO_DECLARED);

  /** {@code engine}'s declarations; empty for an engine declared elsewhere (a third-party provider). */
  public static List<EngineCapability> of(String engine) {
    return BY_ENGINE.getOrDefault(engine, List.of());
  }

  /** Every engine declared here: local, spark, trino, each in its own declaration order. */
  public static List<EngineCapability> all() {
    return Stream.of(LOCAL_DECLARED, SPARK_DECLARED, TRINO_DECLARED)
        .flatMap(List::stream)
        .toList();
  }
}
