package dev.resurfacer.delta.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.ListBlobsOptions;
import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.LogSpellings;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.VersionFiles;
import dev.resurfacer.delta.compact.CompactionOptions;
import dev.resurfacer.delta.compact.CompactionResult;
import dev.resurfacer.delta.compact.DeltaCompactor;
import dev.resurfacer.delta.describe.DeltaDescriber;
import dev.resurfacer.delta.describe.DeltaHealth;
import dev.resurfacer.delta.log.Checkpointer;
import dev.resurfacer.delta.log.LogCleanup;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.ObjectStorage;
import dev.resurfacer.delta.vacuum.DeltaVacuum;
import dev.resurfacer.delta.vacuum.VacuumOptions;
import dev.resurfacer.delta.vacuum.VacuumPlan;
import dev.resurfacer.iceberg.testing.AzuriteServer;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.storage.StorageFences;
import dev.resurfacer.storage.StoredFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delta tables in a real Azure Blob API (Azurite on loopback), addressed by every Azure spelling
 * ({@code abfss}/{@code abfs}/{@code wasbs}/{@code wasb}, the account's {@code dfs} and {@code blob}
 * hosts) through a {@code type: delta} catalog with Iceberg's {@code adls.*} keys. delta-spark, the
 * oracle, writes each table on the local disk; the test uploads it with the Blob SDK, runs our
 * operations on Azurite, and downloads the result for delta-spark to read, so every row is checked
 * by Delta's own reader and every file by name as the server lists it.
 */
class AzureDeltaTableTest {
  private static final VacuumOptions ZERO = new VacuumOptions(Optional.of(Duration.ZERO), true);
  private static final VacuumOptions LITE_ZERO =
      new VacuumOptions(Optional.of(Duration.ZERO), true, true, List.of());
  private static final String DFS = "lake@" + AzuriteServer.DFS_HOST;
  private static final String BLOB = "lake@" + AzuriteServer.BLOB_HOST;

  @RegisterExtension
  static final AzuriteServer AZURE = new AzuriteServer("lake");

  @TempDir
  Path dir;

  private static Path source;

  @BeforeAll
  static void writeTable() throws IOException {
    source = TestTables.sharedPartitionedWithDeletes();
  }

  private static CatalogConfig catalog(Map<String, String> tables) {
    return new CatalogConfig(
        "deltas",
        CatalogConfig.DELTA,
        null,
        null,
        AZURE.fileIoProperties(),
        Set.of("adls.auth.shared-key.account.key"),
        tables,
        List.of());
  }

  private DeltaTable find(String location) {
    return DeltaTables.find(
            "raw.events",
            new ResurfacerConfig(Map.of("deltas", catalog(Map.of("raw.events", location))), null),
            dir)
        .orElseThrow();
  }

  /** Every regular file under {@code local} as the blob {@code prefix/<relative path>}. */
  private static void upload(Path local, String prefix) throws IOException {
    try (Stream<Path> s = Files.walk(local)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        AZURE
            .blobs()
            .getBlobClient(prefix + "/" + local.relativize(p).toString().replace('\\', '/'))
            .uploadFromFile(p.toString(), true);
      }
    }
  }

  /** The blobs under {@code prefix/}, their names relative to it. */
  private static Set<String> names(String prefix) {
    Set<String> out = new TreeSet<>();
    for (BlobItem b :
        AZURE.blobs().listBlobs(new ListBlobsOptions().setPrefix(prefix + "/"), null)) {
      out.add(b.getName().substring(prefix.length() + 1));
    }
    return out;
  }

  /** The blobs under {@code prefix/} into {@code local}, leaving out those {@code skip} accepts. */
  private static Path download(String prefix, Path local, java.util.function.Predicate<String> skip)
      throws IOException {
    for (String name : names(prefix)) {
      if (skip.test(name)) {
        continue;
      }
      Path to = local.resolve(name);
      Files.createDirectories(to.getParent());
      AZURE.blobs().getBlobClient(prefix + "/" + name).downloadToFile(to.toString(), true);
    }
    return local;
  }

  /** The names relative to {@code root} of the files {@code version}'s readers open (the oracle's paths). */
  private static Set<String> relative(Path root, Set<Path> files) throws IOException {
    Path real = root.toRealPath();
    return files.stream()
        .map(p -> real.relativize(p).toString().replace('\\', '/'))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void describeCompactAndVacuumOnAzuriteAsDeltaSparkReadsThemBack() throws Exception {
    Path local = TestTables.copy(source, dir.resolve("src/events"));
    List<String> before = DeltaSpark.typedRows(local);
    long version;
    long files;
    try (DeltaTable t = DeltaTables.open("t", local.toString(), dir)) {
      DeltaHealth h = DeltaDescriber.describe(t, Clock.systemUTC());
      version = h.version();
      files = h.data().dataFiles();
    }
    upload(local, "compact/events");

    // opened by the Blob host's wasbs spelling: one container with the dfs one the client is built
    // for
    try (DeltaTable table = find("wasbs://" + BLOB + "/compact/events")) {
      assertThat(table.storage()).isInstanceOf(ObjectStorage.class);
      assertThat(table.storage().root())
          .isEqualTo(StoredFile.parse("abfss://" + DFS + "/compact/events"));
      assertThat(((ObjectStorage) table.storage()).conditionalPut())
          .as("Azurite honours If-None-Match: *")
          .isTrue();
      DeltaHealth described = DeltaDescriber.describe(table, Clock.systemUTC());
      assertThat(described.version()).isEqualTo(version);
      assertThat(described.data().dataFiles()).isEqualTo(files).isGreaterThan(1);

      // two writers racing for one log entry: the second is told it exists, the first one's content
      // stays
      StoredFile entry = table.storage().child(table.storage().logDir(), "race-probe.json");
      table.storage().createIfAbsent(entry, "first".getBytes(StandardCharsets.UTF_8));
      assertThatThrownBy(() ->
              table.storage().createIfAbsent(entry, "second".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(FileAlreadyExistsException.class);
      assertThat(table.storage().read(entry)).contains("first");
      table.storage().delete(entry);
      assertThat(table.storage().stat(entry)).isEmpty();

      CompactionResult compacted = DeltaCompactor.execute(
          DeltaCompactor.plan(table, CompactionOptions.defaults()),
          Clock.systemUTC(),
          Progress.NONE);
      assertThat(compacted.failedBins()).isEmpty();
      assertThat(compacted.plan().runner()).isEqualTo("kernel");
      assertThat(compacted.removedFiles()).isGreaterThan(compacted.addedFiles()).isGreaterThan(0);

      VacuumPlan plan = DeltaVacuum.plan(table, ZERO, Clock.systemUTC());
      assertThat(plan.deletions()).isNotEmpty();
      var vacuumed = DeltaVacuum.execute(table, plan, ZERO, Clock.systemUTC());
      assertThat(vacuumed.deleted()).isEqualTo(plan.deletions().size());
      assertThat(names("compact/events"))
          .doesNotContainAnyElementsOf(plan.deletions().stream()
              .map(c -> c.file().path().substring("/compact/events/".length()))
              .toList());

      // a checkpoint of our own (past the tombstones' retention), then the log before it cleaned
      // away
      assertThat(Checkpointer.execute(
                  Checkpointer.plan(table, Clock.offset(Clock.systemUTC(), Duration.ofDays(8))))
              .written())
          .isTrue();
      long checkpointed = table.latest().getVersion();
      LogCleanup.Plan cleanup =
          LogCleanup.plan(table, Optional.of(Duration.ZERO), Clock.systemUTC());
      assertThat(cleanup.keepFromVersion()).isEqualTo(checkpointed);
      LogCleanup.execute(table, cleanup);
      assertThat(names("compact/events"))
          .anyMatch(n -> n.startsWith(String.format("_delta_log/%020d.checkpoint", checkpointed)))
          .noneMatch(n -> n.startsWith("_delta_log/00000000000000000000."));
    }

    Path back = download("compact/events", dir.resolve("back/events"), n -> false);
    assertThat(DeltaSpark.typedRows(back))
        .as("delta-spark reads the same rows, from our checkpoint on")
        .isEqualTo(before);
    Row last = DeltaSpark.session()
        .sql("DESCRIBE HISTORY " + DeltaSpark.table(back) + " LIMIT 1")
        .collectAsList()
        .get(0);
    assertThat(last.<String>getAs("operation")).isEqualTo("OPTIMIZE");
    try (DeltaTable t = DeltaTables.open("t", back.toString(), dir)) {
      assertThat(VersionFiles.of(t, t.latest().getVersion()))
          .isNotEmpty()
          .allMatch(Files::isRegularFile);
    }
    // (its dry run also names the partition directories it would remove once empty)
    assertThat(DeltaSpark.session()
            .sql("VACUUM " + DeltaSpark.table(back) + " RETAIN 0 HOURS DRY RUN")
            .collectAsList()
            .stream()
            .map(r -> Path.of(java.net.URI.create(
                new org.apache.hadoop.fs.Path(r.getString(0)).toUri().toString())))
            .filter(Files::isRegularFile)
            .toList())
        .as("no file left for delta-spark's vacuum either")
        .isEmpty();
  }

  /**
   * The log names every file by an absolute URI in another Azure spelling (abfs/wasb/wasbs, the Blob
   * host, upper-case account and container, {@code ./} and {@code x/..}, a percent-escaped letter),
   * the table is opened by yet another: a zero-retention vacuum keeps every file the latest version
   * reads and deletes what the table removed for good and a stray file, so one deleting nothing fails.
   */
  @Test
  void vacuumKeepsEveryLiveFileWhateverAzureSpellingTheLogNamesItBy() throws Exception {
    Path local = TestTables.copy(source, dir.resolve("plain/events"));
    List<String> before = DeltaSpark.typedRows(local);
    Set<String> live;
    Set<String> removedForGood;
    try (DeltaTable t = DeltaTables.open("t", local.toString(), dir)) {
      live = relative(local, VersionFiles.of(t, t.latest().getVersion()));
      removedForGood = relative(local, VersionFiles.removedForGood(t));
    }
    assertThat(live)
        .isNotEmpty()
        .anyMatch(n -> n.startsWith("part=x%25y/"))
        .anyMatch(n -> n.startsWith("part=a b/"));
    assertThat(removedForGood).isNotEmpty();

    Path edited = TestTables.copy(source, dir.resolve("edited/events"));
    List<UnaryOperator<String>> spellings = List.of(
        p -> "abfs://" + DFS + "/aliases/events/" + p,
        p -> "wasb://lake@DevStoreAccount1.blob.core.windows.net/aliases/events/" + p,
        p -> "abfss://LAKE@" + AzuriteServer.BLOB_HOST + "/aliases/./events/" + p,
        p -> "wasbs://" + DFS + "/aliases/x/../events/" + p.replaceFirst("part-", "%70art-"));
    LogSpellings.respell(edited, spellings);
    upload(edited, "aliases/events");
    Path stray =
        TestTables.write(dir.resolve("stray/part-99999-stray.snappy.parquet"), Duration.ofDays(30));
    AZURE
        .blobs()
        .getBlobClient("aliases/events/part=a b/part-99999-stray.snappy.parquet")
        .uploadFromFile(stray.toString(), true);

    try (DeltaTable table = find("abfs://lake@" + AzuriteServer.BLOB_HOST + "/aliases/events")) {
      // lite: only the expired tombstones' files, each stat'ed (no listing, so never the stray)
      Set<String> lite = DeltaVacuum.plan(table, LITE_ZERO, Clock.systemUTC()).deletions().stream()
          .map(c -> c.file().path().substring("/aliases/events/".length()))
          .collect(Collectors.toSet());
      assertThat(lite).isNotEmpty().isSubsetOf(removedForGood).doesNotContainAnyElementsOf(live);
      VacuumPlan plan = DeltaVacuum.plan(table, ZERO, Clock.systemUTC());
      Set<String> planned = plan.deletions().stream()
          .map(c -> c.file().path().substring("/aliases/events/".length()))
          .collect(Collectors.toSet());
      assertThat(planned)
          .doesNotContainAnyElementsOf(live)
          .containsAll(removedForGood)
          .contains("part=a b/part-99999-stray.snappy.parquet");
      DeltaVacuum.execute(table, plan, ZERO, Clock.systemUTC());
    }
    Set<String> after = names("aliases/events");
    assertThat(after)
        .containsAll(live)
        .doesNotContainAnyElementsOf(removedForGood)
        .doesNotContain("part=a b/part-99999-stray.snappy.parquet");

    // delta-spark reads the kept data files under the original (relative) log: the rows are the
    // same
    Path back = TestTables.copy(source, dir.resolve("back/events"));
    try (Stream<Path> s = Files.walk(back)) {
      for (Path p : s.filter(Files::isRegularFile)
          .filter(p -> !back.relativize(p).startsWith("_delta_log"))
          .toList()) {
        Files.delete(p);
      }
    }
    download("aliases/events", back, n -> n.startsWith("_delta_log/"));
    assertThat(DeltaSpark.typedRows(back)).isEqualTo(before);
  }

  @Test
  void vacuumRefusesADeltaOrAnIcebergTableNestedUnderTheRoot() throws Exception {
    upload(source, "nested/events");
    upload(source, "nested/events/part=c/inner");
    Set<String> tree = names("nested/events");
    try (DeltaTable table = find("abfss://" + DFS + "/nested/events")) {
      assertThatThrownBy(() -> DeltaVacuum.plan(table, ZERO, Clock.systemUTC()))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageContaining("another table")
          .hasMessageContaining("part=c/inner");
    }
    assertThat(names("nested/events")).isEqualTo(tree);
    for (String n : tree) {
      if (n.startsWith("part=c/inner/")) {
        AZURE.blobs().getBlobClient("nested/events/" + n).delete();
      }
    }

    // an Iceberg table written by Iceberg Java, its files put under the Delta root
    upload(LogSpellings.icebergTable(dir.resolve("iceberg")), "nested/events/part=c/orders");
    Set<String> withIceberg = names("nested/events");
    assertThat(withIceberg)
        .anyMatch(n -> n.startsWith("part=c/orders/metadata/") && n.endsWith(".metadata.json"));
    try (DeltaTable table = find("wasbs://" + BLOB + "/nested/events")) {
      assertThatThrownBy(() -> DeltaVacuum.plan(table, ZERO, Clock.systemUTC()))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageContaining("another table")
          .hasMessageContaining("part=c/orders");
    }
    assertThat(names("nested/events")).isEqualTo(withIceberg);
  }

  /**
   * A shallow clone (delta-spark's) reads the source's files by absolute URIs, rewritten to the Blob
   * host's {@code wasbs} spelling; the source moved on (OPTIMIZE), so those files are tombstones
   * there. With both tables in the config, the source's vacuum refuses and deletes nothing; without
   * the clone it would have deleted them.
   */
  @Test
  void aShallowCloneReadingTheSourcesFilesStopsTheSourcesVacuum() throws Exception {
    Path src = TestTables.copy(source, dir.resolve("clone/events"));
    Path clone = dir.resolve("clone/events_clone");
    Set<String> cloneReads = LogSpellings.shallowCloneThenOptimize(
        src, clone, path -> "wasbs://" + BLOB + "/clone/events/" + path);
    assertThat(cloneReads).isNotEmpty();
    upload(src, "clone/events");
    upload(clone, "clone/events_clone");
    Set<String> tree = names("clone/events");
    assertThat(tree).containsAll(cloneReads);

    String srcLocation = "abfss://" + DFS + "/clone/events";
    try (DeltaTable alone = find(srcLocation)) {
      Set<String> planned = DeltaVacuum.plan(alone, ZERO, Clock.systemUTC()).deletions().stream()
          .map(c -> c.file().path().substring("/clone/events/".length()))
          .collect(Collectors.toSet());
      assertThat(planned)
          .as("without the clone configured, its files are candidates")
          .containsAnyElementsOf(cloneReads);
    }
    StorageFences both = StorageFences.forCatalogs(
        List.of(catalog(Map.of(
            "raw.events",
            srcLocation,
            "raw.events_clone",
            "abfs://lake@" + AzuriteServer.BLOB_HOST + "/clone/events_clone"))),
        null,
        dir);
    try (DeltaTable table = find(srcLocation).withFences(both)) {
      assertThatThrownBy(() -> DeltaVacuum.execute(
              table, DeltaVacuum.plan(table, ZERO, Clock.systemUTC()), ZERO, Clock.systemUTC()))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageContaining("raw.events_clone in catalog 'deltas' references files in");
    }
    assertThat(names("clone/events")).as("nothing deleted").isEqualTo(tree);
  }

  @Test
  void badAzureLocationsAndDiscoverRootsAreOneLineUsageErrors() {
    assertThatThrownBy(() -> find("abfss://lake/x"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining(
            "is not an abfss://container@account.dfs.core.windows.net/path table location");
    assertThatThrownBy(() -> find("abfss://" + DFS + "/missing"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("is not a Delta table")
        .hasMessageNotContaining(AzuriteServer.KEY);
    CatalogConfig discovering = new CatalogConfig(
        "deltas",
        CatalogConfig.DELTA,
        null,
        null,
        AZURE.fileIoProperties(),
        Set.of(),
        Map.of(),
        List.of("abfss://" + DFS + "/wh"));
    assertThatThrownBy(() -> dev.resurfacer.delta.table.DeltaDiscovery.tables(discovering, dir))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("discover roots on Azure are not walked yet");
  }
}
