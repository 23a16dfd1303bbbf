package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.s3.ConditionalPutFront;
import dev.resurfacer.delta.s3.ConditionalPutFront.Fault;
import dev.resurfacer.delta.s3.S3Bucket;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import io.delta.kernel.Scan;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compaction whose commit fails, on a real S3 store (s3proxy behind {@link ConditionalPutFront},
 * which injects the fault into the PUT of the log entry and nothing else): when the entry landed and
 * only its reply was lost, the new files are the table's and stay; when it never landed, they are
 * deleted. Either way the bin is reported failed in one line and Kernel reads the same rows.
 */
class CommitFaultTest {
  @TempDir
  Path dir;

  @Test
  void aCommitThatLandedButWhoseReplyWasLostKeepsItsNewFiles() throws Exception {
    compactWith(Fault.LOSE_REPLY_AFTER_WRITING, (run, s3) -> {
      DeltaTable table = run.table();
      assertThat(run.front().faults()).isEqualTo(1);
      assertThat(table.latest().getVersion())
          .as("the entry landed; nothing was committed after it")
          .isEqualTo(run.read() + 1);
      Set<String> added = dataKeys(s3);
      added.removeAll(run.dataBefore());
      assertThat(added)
          .as("the landed entry's new files")
          .isNotEmpty()
          .isEqualTo(liveKeys(table).stream()
              .filter(k -> !run.dataBefore().contains(k))
              .collect(Collectors.toSet()));
      assertThat(dataKeys(s3))
          .as("every file the table references exists")
          .containsAll(liveKeys(table));
    });
  }

  @Test
  void aCommitThatNeverLandedDeletesItsNewFilesAndNothingReferenced() throws Exception {
    compactWith(Fault.NEVER_WRITE, (run, s3) -> {
      assertThat(run.front().faults()).isGreaterThanOrEqualTo(1);
      assertThat(run.table().latest().getVersion()).isEqualTo(run.read());
      assertThat(dataKeys(s3))
          .as("the bin's new files were deleted, the table's kept")
          .isEqualTo(run.dataBefore())
          .containsAll(liveKeys(run.table()));
    });
  }

  /** One compaction whose commit meets {@code fault}, as {@code check} sees it after the common checks. */
  private record Run(
      DeltaTable table, ConditionalPutFront front, long read, Set<String> dataBefore) {}

  private interface Check {
    void accept(Run run, S3Bucket s3) throws Exception;
  }

  /**
   * Compacts a fresh table whose next log entry's PUT meets {@code fault}; the bin must be reported
   * failed in one line with nothing committed, and Kernel must read the rows it read before.
   */
  private void compactWith(Fault fault, Check check) throws Exception {
    Path local = table();
    try (S3Bucket s3 = new S3Bucket("fault", false);
        ConditionalPutFront front = new ConditionalPutFront(s3.endpoint());
        DeltaTable table = open(s3, front, local)) {
      long read = table.latest().getVersion();
      List<String> rowsBefore = kernelRows(table);
      Set<String> dataBefore = dataKeys(s3);
      front.inject(String.format("_delta_log/%020d.json", read + 1), fault);

      CompactionResult result = DeltaCompactor.execute(
          DeltaCompactor.plan(table, CompactionOptions.defaults()), Clock.systemUTC());

      assertThat(result.committedVersions()).isEmpty();
      assertThat(result.failedBins()).singleElement().asString().doesNotContain("\n");
      check.accept(new Run(table, front, read, dataBefore), s3);
      assertThat(kernelRows(table)).isEqualTo(rowsBefore);
    }
  }

  /** An unpartitioned table of four Spark inserts: one bin of small files. */
  private Path table() {
    Path local = dir.resolve("t");
    DeltaSpark.sql(
        "CREATE TABLE " + DeltaSpark.table(local) + " (id BIGINT, v STRING) USING delta");
    for (int i = 0; i < 4; i++) {
      DeltaSpark.sql("INSERT INTO " + DeltaSpark.table(local)
          + " SELECT id, concat('v', id) FROM range(" + i * 50 + ", " + (i * 50 + 50) + ")");
    }
    return local;
  }

  private DeltaTable open(S3Bucket s3, ConditionalPutFront front, Path local) throws Exception {
    String location = s3.upload(local, "t");
    S3Bucket.age(s3.backend("t"), Instant.now().minus(Duration.ofDays(1)));
    Map<String, String> props = new HashMap<>(s3.properties());
    props.put("s3.endpoint", front.endpoint());
    ResurfacerConfig config = new ResurfacerConfig(
        Map.of(
            "deltas",
            new CatalogConfig(
                "deltas", "delta", null, null, props, Set.of(), Map.of("t.t", location))),
        null);
    return DeltaTables.find("t.t", config, dir).orElseThrow();
  }

  private static Set<String> dataKeys(S3Bucket s3) throws Exception {
    return s3.keys("t").stream()
        .filter(k -> k.endsWith(".parquet") && !k.startsWith("_delta_log/"))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static Set<String> liveKeys(DeltaTable table) {
    return LiveFiles.of(table, table.latest()).stream()
        .map(f -> f.file().path().substring(table.storage().root().path().length() + 1))
        .collect(Collectors.toSet());
  }

  /** The newest version's rows as Delta Kernel reads them, each value tagged with its type, sorted. */
  private static List<String> kernelRows(DeltaTable table) throws Exception {
    var engine = table.engine();
    Scan scan = table.latest().getScanBuilder().build();
    Row scanState = scan.getScanState(engine);
    StructType physical = KernelInternals.physicalReadSchema(scanState);
    Map<String, LiveFile> live = new HashMap<>();
    LiveFiles.of(table, table.latest()).forEach(f -> live.put(f.logPath(), f));
    List<String> rows = new ArrayList<>();
    try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
      while (files.hasNext()) {
        try (CloseableIterator<Row> scanFiles = files.next().getRows()) {
          while (scanFiles.hasNext()) {
            Row scanFile = scanFiles.next();
            Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
            LiveFile f = live.get(add.getString(add.getSchema().indexOf("path")));
            CloseableIterator<ColumnarBatch> data = engine
                .getParquetHandler()
                .readParquetFiles(
                    KernelIterators.of(List.of(FileStatus.of(
                        table.storage().kernelPath(f.file()), f.size(), f.modificationTime()))),
                    physical,
                    Optional.empty())
                .map(FileReadResult::getData);
            try (CloseableIterator<FilteredColumnarBatch> logical =
                Scan.transformPhysicalData(engine, scanState, scanFile, data)) {
              while (logical.hasNext()) {
                FilteredColumnarBatch b = logical.next();
                ColumnarBatch batch = b.getData();
                for (int r = 0; r < batch.getSize(); r++) {
                  Optional<ColumnVector> selection = b.getSelectionVector();
                  if (selection.isPresent()
                      && (selection.get().isNullAt(r) || !selection.get().getBoolean(r))) {
                    continue;
                  }
                  ColumnVector id = batch.getColumnVector(batch.getSchema().indexOf("id"));
                  ColumnVector v = batch.getColumnVector(batch.getSchema().indexOf("v"));
                  rows.add("id=long:" + (id.isNullAt(r) ? "null" : id.getLong(r)) + ",v=string:"
                      + (v.isNullAt(r) ? "null" : v.getString(r)));
                }
              }
            }
          }
        }
      }
    }
    rows.sort(null);
    return rows;
  }
}
