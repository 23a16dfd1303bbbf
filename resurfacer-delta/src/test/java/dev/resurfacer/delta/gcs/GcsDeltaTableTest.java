package dev.resurfacer.delta.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
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
import dev.resurfacer.iceberg.testing.GcsEmulator;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delta tables on Google Cloud Storage ({@code gs://}) against a real GCS JSON-API server (the
 * Cloud Storage emulator of npm {@code firebase-tools}, started for this class), through a
 * {@code type: delta} catalog with Iceberg's {@code gcs.*} keys. delta-spark, the oracle, writes each
 * table on the local disk; the test uploads it with the Cloud Storage SDK, runs our operations on the
 * server (Kernel reads and writes {@code gs://} there), and downloads the result for delta-spark to
 * read, so every row is checked by Delta's own reader and every object by name as the server lists it.
 */
class GcsDeltaTableTest {
  private static final VacuumOptions ZERO = new VacuumOptions(Optional.of(Duration.ZERO), true);
  private static final VacuumOptions LITE_ZERO =
      new VacuumOptions(Optional.of(Duration.ZERO), true, true, List.of());
  /** A credential the catalog names: it must never reach a message. */
  private static final String TOKEN = "ya29.never-in-a-message-0451";

  @RegisterExtension
  static final GcsEmulator GCS = new GcsEmulator("lake");

  @TempDir
  Path dir;

  private static Path source;
  private static Storage client;

  @BeforeAll
  static void writeTable() throws IOException {
    source = TestTables.sharedPartitionedWithDeletes();
  }

  @AfterAll
  static void closeClient() throws Exception {
    if (client != null) {
      client.close();
    }
  }

  private static synchronized Storage storage() {
    if (client == null) {
      client = GCS.storage();
    }
    return client;
  }

  private static CatalogConfig catalog(Map<String, String> tables) {
    return new CatalogConfig(
        "deltas",
        CatalogConfig.DELTA,
        null,
        null,
        GCS.fileIoProperties(),
        Set.of(),
        tables,
        List.of());
  }

  /** The emulator's project and host with an OAuth2 token instead of no-auth: the token is a secret. */
  private static CatalogConfig withToken(Map<String, String> tables) {
    Map<String, String> props = new HashMap<>(GCS.fileIoProperties());
    props.remove("gcs.no-auth");
    props.put("gcs.oauth2.token", TOKEN);
    return new CatalogConfig(
        "deltas",
        CatalogConfig.DELTA,
        null,
        null,
        props,
        Set.of("gcs.oauth2.token"),
        tables,
        List.of());
  }

  private DeltaTable find(String location) {
    return find(catalog(Map.of("raw.events", location)));
  }

  private DeltaTable find(CatalogConfig catalog) {
    return DeltaTables.find(
            "raw.events", new ResurfacerConfig(Map.of("deltas", catalog), null), dir)
        .orElseThrow();
  }

  /** Every regular file under {@code local} as the object {@code prefix/<relative path>}. */
  static void upload(Storage storage, String bucket, Path local, String prefix) throws IOException {
    try (Stream<Path> s = Files.walk(local)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        storage.createFrom(
            BlobInfo.newBuilder(BlobId.of(
                    bucket, prefix + "/" + local.relativize(p).toString().replace('\\', '/')))
                .build(),
            p);
      }
    }
  }

  private static void upload(Path local, String prefix) throws IOException {
    upload(storage(), GCS.bucket(), local, prefix);
  }

  /** A resumable upload: the emulator cannot parse the SDK's multipart one. */
  private static void put(String name, byte[] content) throws IOException {
    storage()
        .createFrom(
            BlobInfo.newBuilder(BlobId.of(GCS.bucket(), name)).build(),
            new java.io.ByteArrayInputStream(content));
  }

  /** The objects under {@code prefix/}, their names relative to it. */
  private static Set<String> names(String prefix) {
    Set<String> out = new TreeSet<>();
    for (Blob b : storage()
        .list(GCS.bucket(), Storage.BlobListOption.prefix(prefix + "/"))
        .iterateAll()) {
      out.add(b.getName().substring(prefix.length() + 1));
    }
    return out;
  }

  /** The objects under {@code prefix/} into {@code local}, leaving out those {@code skip} accepts. */
  private static Path download(String prefix, Path local, Predicate<String> skip)
      throws IOException {
    for (String name : names(prefix)) {
      if (skip.test(name)) {
        continue;
      }
      Path to = local.resolve(name);
      Files.createDirectories(to.getParent());
      storage().downloadTo(BlobId.of(GCS.bucket(), prefix + "/" + name), to);
    }
    return local;
  }

  private static Set<String> relative(Path root, Set<Path> files) throws IOException {
    Path real = root.toRealPath();
    return files.stream()
        .map(p -> real.relativize(p).toString().replace('\\', '/'))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static Set<String> under(VacuumPlan plan, String prefix) {
    return plan.deletions().stream()
        .map(c -> c.file().path().substring(prefix.length()))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void describeCompactVacuumCheckpointAndCleanUpTheLogOnCloudStorageAsDeltaSparkReadsThemBack()
      throws Exception {
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

    // opened by an upper-case bucket: buckets are lower-case, one bucket
    try (DeltaTable table = find("gs://LAKE/compact/events")) {
      assertThat(table.storage()).isInstanceOf(ObjectStorage.class);
      assertThat(table.storage().root()).isEqualTo(StoredFile.parse("gs://lake/compact/events"));
      assertThat(((ObjectStorage) table.storage()).conditionalPut())
          .as("the server honours ifGenerationMatch=0")
          .isTrue();
      DeltaHealth described = DeltaDescriber.describe(table, Clock.systemUTC());
      assertThat(described.version()).isEqualTo(version);
      assertThat(described.data().dataFiles()).isEqualTo(files).isGreaterThan(1);

      CompactionResult compacted = DeltaCompactor.execute(
          DeltaCompactor.plan(table, CompactionOptions.defaults()),
          Clock.systemUTC(),
          Progress.NONE);
      assertThat(compacted.failedBins()).isEmpty();
      assertThat(compacted.plan().runner()).isEqualTo("kernel");
      assertThat(compacted.removedFiles()).isGreaterThan(compacted.addedFiles()).isGreaterThan(0);
      assertThat(table.latest().getVersion()).as("compaction committed").isGreaterThan(version);

      VacuumPlan plan = DeltaVacuum.plan(table, ZERO, Clock.systemUTC());
      assertThat(plan.deletions()).isNotEmpty();
      var vacuumed = DeltaVacuum.execute(table, plan, ZERO, Clock.systemUTC());
      assertThat(vacuumed.deleted()).isEqualTo(plan.deletions().size());
      assertThat(names("compact/events"))
          .doesNotContainAnyElementsOf(under(plan, "/compact/events/"));
      assertThat(DeltaVacuum.plan(table, ZERO, Clock.systemUTC()).deletions())
          .as("nothing left to vacuum")
          .isEmpty();

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
  }

  /**
   * Log entries are created with {@code ifGenerationMatch=0}: of writers racing for one version,
   * exactly one creates it and its content stays, the others are told it exists.
   */
  @Test
  void writersRacingForOneLogEntryGetOneWinner() throws Exception {
    upload(source, "race/events");
    try (DeltaTable table = find("gs://lake/race/events")) {
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        for (int round = 0; round < 5; round++) {
          StoredFile entry = table
              .storage()
              .child(table.storage().logDir(), String.format("%020d.json", 1000 + round));
          CountDownLatch go = new CountDownLatch(1);
          List<Future<Boolean>> writers = new ArrayList<>();
          for (int w = 0; w < 4; w++) {
            byte[] content = ("writer " + w).getBytes(StandardCharsets.UTF_8);
            Callable<Boolean> write = () -> {
              go.await();
              try {
                table.storage().createIfAbsent(entry, content);
                return true;
              } catch (FileAlreadyExistsException lost) {
                return false;
              }
            };
            writers.add(pool.submit(write));
          }
          go.countDown();
          List<Integer> won = new ArrayList<>();
          for (int w = 0; w < writers.size(); w++) {
            if (writers.get(w).get()) {
              won.add(w);
            }
          }
          assertThat(won).as("round " + round).hasSize(1);
          assertThat(table.storage().read(entry)).contains("writer " + won.get(0));
          table.storage().delete(entry);
          assertThat(table.storage().stat(entry)).isEmpty();
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /**
   * The log names every file by an absolute URI in another spelling of the bucket or path
   * ({@code gs://LAKE}, {@code GS://}, {@code ./} and {@code x/..}, a percent-escaped letter; the
   * partition directories themselves hold {@code %25} and a space), the table is opened by yet
   * another: a zero-retention vacuum, full and lite, keeps every file the latest version reads and
   * deletes what the table removed for good and a stray file, so one deleting nothing fails.
   */
  @Test
  void vacuumKeepsEveryLiveFileWhateverSpellingTheLogNamesItBy() throws Exception {
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
        p -> "gs://LAKE/aliases/events/" + p,
        p -> "GS://lake/aliases/events/" + p,
        p -> "gs://Lake/aliases/./events/" + p,
        p -> "gs://lake/aliases/x/../events/" + p.replaceFirst("part-", "%70art-"));
    LogSpellings.respell(edited, spellings);
    upload(edited, "aliases/events");
    Path stray =
        TestTables.write(dir.resolve("stray/part-99999-stray.snappy.parquet"), Duration.ofDays(30));
    storage()
        .createFrom(
            BlobInfo.newBuilder(BlobId.of(
                    GCS.bucket(), "aliases/events/part=a b/part-99999-stray.snappy.parquet"))
                .build(),
            stray);
    // a folder placeholder (as the console makes) is not a file: never listed, never deleted
    put("aliases/events/part=a b/", new byte[0]);

    try (DeltaTable table = find("gs://lake/aliases/x/../events")) {
      Set<String> lite =
          under(DeltaVacuum.plan(table, LITE_ZERO, Clock.systemUTC()), "/aliases/events/");
      assertThat(lite).isNotEmpty().isSubsetOf(removedForGood).doesNotContainAnyElementsOf(live);
      VacuumPlan plan = DeltaVacuum.plan(table, ZERO, Clock.systemUTC());
      Set<String> planned = under(plan, "/aliases/events/");
      assertThat(planned)
          .doesNotContainAnyElementsOf(live)
          .containsAll(removedForGood)
          .contains("part=a b/part-99999-stray.snappy.parquet")
          .doesNotContain("part=a b/");
      DeltaVacuum.execute(table, plan, ZERO, Clock.systemUTC());
    }
    Set<String> after = names("aliases/events");
    assertThat(after)
        .containsAll(live)
        .doesNotContainAnyElementsOf(removedForGood)
        .doesNotContain("part=a b/part-99999-stray.snappy.parquet")
        .contains("part=a b/");

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
    download("aliases/events", back, n -> n.startsWith("_delta_log/") || n.endsWith("/"));
    assertThat(DeltaSpark.typedRows(back)).isEqualTo(before);
  }

  /** An object name a parser would normalize ({@code a//b}) has no safe identity: vacuum refuses and deletes nothing. */
  @Test
  void anAmbiguousObjectNameUnderTheRootRefusesTheVacuum() throws Exception {
    upload(source, "ambiguous/events");
    put("ambiguous/events/part=c//part-0.parquet", new byte[] {1});
    Set<String> tree = names("ambiguous/events");
    try (DeltaTable table = find("gs://lake/ambiguous/events")) {
      assertThatThrownBy(() -> DeltaVacuum.plan(table, ZERO, Clock.systemUTC()))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageContaining("ambiguous");
    }
    assertThat(names("ambiguous/events")).isEqualTo(tree);
  }

  @Test
  void vacuumRefusesADeltaOrAnIcebergTableNestedUnderTheRoot() throws Exception {
    upload(source, "nested/events");
    upload(source, "nested/events/part=c/inner");
    Set<String> tree = names("nested/events");
    try (DeltaTable table = find("gs://lake/nested/events")) {
      assertThatThrownBy(() -> DeltaVacuum.plan(table, ZERO, Clock.systemUTC()))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageContaining("another table")
          .hasMessageContaining("part=c/inner");
    }
    assertThat(names("nested/events")).isEqualTo(tree);
    for (String n : tree) {
      if (n.startsWith("part=c/inner/")) {
        storage().delete(BlobId.of(GCS.bucket(), "nested/events/" + n));
      }
    }

    // an Iceberg table written by Iceberg Java, its files put under the Delta root
    upload(LogSpellings.icebergTable(dir.resolve("iceberg")), "nested/events/part=c/orders");
    Set<String> withIceberg = names("nested/events");
    assertThat(withIceberg)
        .anyMatch(n -> n.startsWith("part=c/orders/metadata/") && n.endsWith(".metadata.json"));
    try (DeltaTable table = find("GS://LAKE/nested/events")) {
      assertThatThrownBy(() -> DeltaVacuum.plan(table, ZERO, Clock.systemUTC()))
          .isInstanceOf(SafetyRefusal.class)
          .hasMessageContaining("another table")
          .hasMessageContaining("part=c/orders");
    }
    assertThat(names("nested/events")).isEqualTo(withIceberg);
  }

  /**
   * A neighbour table (delta-spark's shallow clone) reads the source's files by absolute URIs in
   * another spelling of the bucket; the source moved on (OPTIMIZE), so those files are tombstones
   * there. With both tables in the config, the source's vacuum refuses and deletes nothing; without
   * the clone configured it would have deleted them.
   */
  @Test
  void aNeighbourTableReadingTheSourcesFilesStopsTheSourcesVacuum() throws Exception {
    Path src = TestTables.copy(source, dir.resolve("clone/events"));
    Path clone = dir.resolve("clone/events_clone");
    Set<String> cloneReads = LogSpellings.shallowCloneThenOptimize(
        src, clone, path -> "gs://LAKE/clone/./events/" + path);
    assertThat(cloneReads).isNotEmpty();
    upload(src, "clone/events");
    upload(clone, "clone/events_clone");
    Set<String> tree = names("clone/events");
    assertThat(tree).containsAll(cloneReads);

    String srcLocation = "gs://lake/clone/events";
    try (DeltaTable alone = find(srcLocation)) {
      assertThat(under(DeltaVacuum.plan(alone, ZERO, Clock.systemUTC()), "/clone/events/"))
          .as("without the clone configured, its files are candidates")
          .containsAnyElementsOf(cloneReads);
    }
    StorageFences both = StorageFences.forCatalogs(
        List.of(catalog(
            Map.of("raw.events", srcLocation, "raw.events_clone", "GS://Lake/clone/events_clone"))),
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
  void badCloudStorageLocationsAndDiscoverRootsAreOneLineUsageErrors() {
    assertThatThrownBy(() -> find("gs://lake"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("is not a gs://bucket/path table location");
    assertThatThrownBy(() -> find("gs://lake/missing"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("is not a Delta table")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    // a token: never in what the table shows of its storage, nor in an error, whatever the server
    // says of it
    try (ObjectStorage storage =
        ObjectStorage.open("gs://lake/tokened/events", DeltaTables.settings(withToken(Map.of())))) {
      assertThat(storage.toString()).contains("gcs.oauth2.token").doesNotContain(TOKEN);
    }
    try (DeltaTable t = find(withToken(Map.of("raw.events", "gs://lake/tokened/events")))) {
      throw new AssertionError("no table there: " + t);
    } catch (UsageException e) {
      assertThat(e.getMessage())
          .doesNotContain(TOKEN)
          .doesNotContain("\n")
          .contains("gs://lake/tokened/events");
    }
    assertThatThrownBy(() -> find("gcs://lake/x"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("gcs:// storage are not supported")
        .hasMessageContaining("gs://");
    CatalogConfig discovering = new CatalogConfig(
        "deltas",
        CatalogConfig.DELTA,
        null,
        null,
        GCS.fileIoProperties(),
        Set.of(),
        Map.of(),
        List.of("gs://lake/wh"));
    assertThatThrownBy(() -> dev.resurfacer.delta.table.DeltaDiscovery.tables(discovering, dir))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("discover roots on Cloud Storage are not walked yet");
  }
}
