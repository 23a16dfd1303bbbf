package dev.resurfacer.capabilities;

import java.util.List;

/**
 * What each operation does on this build. {@code doctor} prints it and {@code docs/features.md}
 * mirrors it; keep both true when an operation lands.
 */
public final class Capabilities {
  private Capabilities() {}

  public enum Status {
    WORKS,
    NOT_YET,
    REFUSED
  }

  public record Capability(String operation, Status status, String note) {}

  public static List<Capability> all() {
    return List.of(
        new Capability(
            "describe",
            Status.WORKS,
            "files, deletes by kind, snapshots, manifests, metadata; text or JSON"),
        new Capability(
            "doctor", Status.WORKS, "versions, catalog reachability, warehouse access, DuckDB"),
        new Capability(
            "demo",
            Status.WORKS,
            "seeded shop.orders table with small files, position and equality deletes"),
        new Capability(
            "plan / compact",
            Status.WORKS,
            "bin-pack with Spark's options; applies position, DV and equality deletes; DuckDB runner in bounded memory, generic fallback; verified replace commits"),
        new Capability(
            "compact --strategy sort|zorder",
            Status.WORKS,
            "table or explicit sort order (transforms applied, id stamped only when declared); documented z-value (binary, fixed, uuid by an 8-byte prefix); global order within a group; both runners, spilling"),
        new Capability(
            "advise / compact.layout: auto",
            Status.WORKS,
            "sort or z-order keys and target size from recorded scan reports"
                + " (collector jar for Iceberg engines, documented JSON lines for any producer), simulated on a row sample; maintain applies it"
                + " past a gain threshold and records it; Iceberg only, local engine"),
        new Capability(
            "condense",
            Status.WORKS,
            "day->month, ->year, hour->day into a non-default coarse spec; one commit per output partition; generic runner;"
                + " nothing to do (with the reason) on tables without one finer time field; compaction leaves condensed files in place"),
        new Capability(
            "expire",
            Status.WORKS,
            "core ExpireSnapshots; table retention properties; refs kept unless --expire-refs; deletes exactly the previewed files"),
        new Capability(
            "remove-orphans",
            Status.WORKS,
            "lists before reading metadata; 3d age guard; table-scoped; refuses on partial listing, empty reference category, prefix mismatch, overlapping tables; DuckDB anti-join"),
        new Capability(
            "remove-orphans --listing",
            Status.WORKS,
            "an S3 Inventory report (manifest.json, CSV/Parquet) or a plain list read"
                + " instead of listing storage; the age guard must exceed the listing's age, files newer than it never candidates, a referenced"
                + " file older than it and missing refuses (partial listing); policy key remove-orphans.listing"),
        new Capability(
            "Azure storage (abfs, abfss, wasb, wasbs)",
            Status.WORKS,
            "Iceberg tables through ADLSFileIO (shared key, SAS, token,"
                + " DefaultAzureCredential; secrets by reference); orphan listing through the Blob API; tested on Azurite (Blob service only:"
                + " no hierarchical-namespace endpoint); Delta on Azure through the Blob API"),
        new Capability(
            "Google Cloud Storage (gs://)",
            Status.WORKS,
            "Iceberg tables through GCSFileIO (project, endpoint, ADC or token;"
                + " secrets by reference); deletes one object at a time (the batch endpoint untested); tested on firebase-tools' Cloud Storage"
                + " emulator (real authentication, TLS and hierarchical-namespace buckets untested); Delta on GCS through the same client"),
        new Capability(
            "remove-dangling-deletes",
            Status.WORKS,
            "deletes no live data file can match (scan planner's rules), removed by core's action; metadata only"),
        new Capability(
            "rewrite-manifests",
            Status.WORKS,
            "core RewriteManifests clustered by partition; sequence numbers kept; no-op when already clustered"),
        new Capability(
            "rewrite-position-deletes",
            Status.WORKS,
            "v2: core planner and commit manager, keeps entries of live data files only; v3: position-delete files become deletion vectors (core DV writer), one per data file, validated RowDelta"),
        new Capability(
            "convert-equality-deletes",
            Status.WORKS,
            "equality deletes resolved per data file by the scan's rules (core delete filter) into deletion vectors (v3) or position deletes (v2); no data file rewritten; validated RowDelta"),
        new Capability(
            "compute-stats",
            Status.WORKS,
            "per-column NDV theta sketches (apache-datasketches-theta-v1, ndv property, as Spark's compute_table_stats) in a Puffin file on the current snapshot; one sketch per column in memory"),
        new Capability(
            "compute-partition-stats",
            Status.WORKS,
            "core PartitionStatsHandler (incremental), set on the current snapshot"),
        new Capability(
            "upgrade --format-version",
            Status.WORKS,
            "core metadata upgrade (v1/v2 -> v2/v3) through the catalog's atomic swap; preview lists the consequences; downgrades refused"),
        new Capability(
            "apply-retention",
            Status.WORKS,
            "sets previous-versions-max and delete-after-commit; reports stranded metadata.json"),
        new Capability(
            "maintain",
            Status.WORKS,
            "every table of every configured catalog (Iceberg and Delta) by its policy, in design order (retention, condense, compact, deletes, manifests, stats, expire, orphans; Delta: compact, vacuum, checkpoint, cleanup-log); one failure does not stop the rest, nor a failed step the table's later steps unless their safety depends on it; a commit run never reports previewed; table lease against overlapping runs"),
        new Capability(
            "names",
            Status.WORKS,
            "tables and columns named with dots, colons, slashes, blanks or unicode: parts quoted in backticks (Spark) or double quotes (Trino) on every verb, --tables, policy keys, column lists; reports write them back the same way"),
        new Capability(
            "serve",
            Status.WORKS,
            "Iceberg and Delta catalogs: triggers from metadata (Delta: its log) on an interval run the table's policy; concurrency limit, "
                + "min interval, backoff, lease (Delta: DeltaLease); SQLite/Postgres run history (kill -9 shows interrupted); "
                + "/metrics, /healthz, dashboard; loopback or token"),
        new Capability(
            "serve: per-trigger operations, lease hand-back after kill -9",
            Status.NOT_YET,
            "one operations: list per table; a killed run's lease lapses after serve.lease"),
        new Capability(
            "policy",
            Status.WORKS,
            "defaults and tables (exact or glob, most specific wins) in resurfacer.yml for every operation and serve's triggers; strict one-line errors"),
        new Capability(
            "engines",
            Status.WORKS,
            "execution-engine SPI: --engine and engine: per table; each engine declares what it runs per format (resurfacer engines)"),
        new Capability(
            "--engine spark (Iceberg)",
            Status.WORKS,
            "Iceberg's Spark procedures over Spark Connect: compact (--where, identity --partition), rewrite-manifests, expire,"
                + " remove-orphans (dry run + our fences), rewrite-position-deletes (v2); local previews; row count + checksum compared after Spark's commit"),
        new Capability(
            "Spark job jar",
            Status.WORKS,
            "spark-submit --class dev.resurfacer.spark.job.JobMain resurfacer-spark.jar maintain ...: our CLI in the driver in its own"
                + " class loader beside the cluster's Iceberg runtime, the spark engine on the job's session; Spark job progress logged"),
        new Capability(
            "--engine spark (Delta)",
            Status.WORKS,
            "delta-spark over Spark Connect: compact as OPTIMIZE (sizes set so it selects the previewed files) or OPTIMIZE ZORDER BY,"
                + " vacuum only when VACUUM DRY RUN lists nothing our plan keeps; same-table check; rows compared after, a mismatch undone by a Kernel commit made only on that version;"
                + " checkpoint, cleanup-log, liquid-clustered tables, lone-file purges and --where refused with the reason"),
        new Capability(
            "engine: trino",
            Status.WORKS,
            "Iceberg compact/rewrite-manifests/expire/remove-orphans as Trino procedures over trino-jdbc; our preview and fences first, Trino's floors refused by name, rows checked after; Delta optimize and vacuum (fenced by our vacuum plan) on s3:// tables"),
        new Capability(
            "reports",
            Status.WORKS,
            "text, JSON (schema v1), self-contained HTML with inline SVG histograms, Prometheus textfile"),
        new Capability(
            "Delta: describe",
            Status.WORKS,
            "by path or delta-catalog name; version, protocol and features, files and histogram, deletion vectors, tombstones, checkpoint, log size, retention"),
        new Capability(
            "Delta: vacuum",
            Status.WORKS,
            "full mode (listing first); current files and DVs live, tombstones from JSON commits; retention check; no link following; refuses nested tables, partial listings, missing live files, a log short of the retention; --lite (expired tombstones still in the log, no listing); --keep-versions protects versions for time travel"),
        new Capability(
            "Delta: plan / compact",
            Status.WORKS,
            "bin-pack per partition into delta.targetFileSize (100MB default), DV purge over 0.3; DuckDB runner bounded by --memory (DVs from Kernel as an anti-join, Kernel's stats), Kernel runner as fallback; content-verified; OPTIMIZE, dataChange=false"),
        new Capability(
            "Delta: checkpoint / cleanup-log",
            Status.WORKS,
            "Kernel checkpoint (refused while unexpired tombstones precede the newest checkpoint); log entries before an old checkpoint"),
        new Capability(
            "Delta: maintain, policies, library",
            Status.WORKS,
            "one run and report with Iceberg; compact, vacuum, checkpoint, cleanup-log by policy; namespace globs; lease file with atomic create"),
        new Capability(
            "Delta: z-order, --where",
            Status.WORKS,
            "same z-value as Iceberg's (ZKeys), each partition one sorted bin, spilling past --memory on DuckDB (in the heap on the Kernel fallback, and on s3:// tables); --where on partition columns; clustered tables bin-pack only"),
        new Capability(
            "Delta: s3:// tables",
            Status.WORKS,
            "every verb; Kernel FileIO on the AWS SDK (endpoint, path-style, static keys by secret reference); log entries and leases by conditional PUT, measured per table; stores that ignore it refused unless s3.single-writer: true; compaction by Kernel's runner in the heap (DuckDB reads local files only); tested on s3proxy"),
        new Capability(
            "Delta: compact on column-mapped tables",
            Status.WORKS,
            "name and id mode: physical names and Parquet field ids at every level as delta-spark writes them, stats keyed by physical names; "
                + "id-mode files storing field ids under other names go to Kernel's runner (DuckDB reads by name)"),
        new Capability(
            "Delta: compact on row tracking, type widening, variant",
            Status.REFUSED,
            "they need their own handling"));
  }
}
