package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.s3.ConditionalPutFront;
import dev.resurfacer.delta.s3.S3Bucket;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.ObjectStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two compactions of one S3 table, in two separate clients, race for the same log version on a store
 * that honours conditional PUTs (s3proxy behind {@link ConditionalPutFront}): exactly one commits,
 * the other fails cleanly with its new files deleted, and no log entry is overwritten.
 */
class S3CommitRaceTest {
  @TempDir
  Path dir;

  @Test
  void ofTwoWritersRacingForOneVersionExactlyOneWins() throws Exception {
    Path local = dir.resolve("t");
    DeltaSpark.sql(
        "CREATE TABLE " + DeltaSpark.table(local) + " (id BIGINT, v STRING) USING delta");
    for (int i = 0; i < 4; i++) {
      DeltaSpark.sql("INSERT INTO " + DeltaSpark.table(local)
          + " SELECT id, concat('v', id) FROM range(" + i * 50 + ", " + (i * 50 + 50) + ")");
    }
    List<String> before = DeltaSpark.rows(local);
    try (S3Bucket s3 = new S3Bucket("race", false);
        ConditionalPutFront front = new ConditionalPutFront(s3.endpoint())) {
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
      try (DeltaTable first = DeltaTables.find("t.t", config, dir).orElseThrow();
          DeltaTable second = DeltaTables.find("t.t", config, dir).orElseThrow()) {
        assertThat(((ObjectStorage) first.storage()).conditionalPut()).isTrue();
        long read = first.latest().getVersion();
        Set<String> dataBefore = dataKeys(s3);

        CyclicBarrier bothVerified = new CyclicBarrier(2);
        Runnable meet = () -> {
          try {
            bothVerified.await(60, TimeUnit.SECONDS);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        };
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<CompactionResult>> runs = new ArrayList<>();
        for (DeltaTable t : List.of(first, second)) {
          runs.add(pool.submit(() -> DeltaCompactor.execute(
              DeltaCompactor.plan(t, CompactionOptions.defaults()),
              Clock.systemUTC(),
              DeltaCompactor.Seam.beforeCommit(meet))));
        }
        List<CompactionResult> results = new ArrayList<>();
        for (Future<CompactionResult> f : runs) {
          results.add(f.get(5, TimeUnit.MINUTES));
        }
        pool.shutdown();

        assertThat(results)
            .filteredOn(r -> r.committedVersions().equals(List.of(read + 1)))
            .hasSize(1);
        CompactionResult loser =
            results.stream().filter(r -> !r.failedBins().isEmpty()).findFirst().orElseThrow();
        assertThat(loser.committedVersions()).isEmpty();
        assertThat(first.latest().getVersion())
            .as("no second version: the loser did not rebase onto the winner")
            .isEqualTo(read + 1);

        // the entry of version read+1 is the winner's: the files it adds are exactly the live ones,
        // all present
        Set<String> live = LiveFiles.of(first, first.latest()).stream()
            .map(f -> f.file().path().substring(first.storage().root().path().length() + 1))
            .collect(Collectors.toSet());
        Set<String> dataAfter = dataKeys(s3);
        dataBefore.forEach(dataAfter::remove);
        assertThat(dataAfter)
            .as("only the winner's new files are left; the loser's were deleted")
            .isEqualTo(live);
        Path after = s3.download("t", dir.resolve("after"));
        assertThat(DeltaSpark.rows(after)).isEqualTo(before);
      }
    }
  }

  /**
   * Two Kernel transactions built on the same version both try to create the next log entry at
   * once: the store refuses the second PUT (412), Kernel rebases that blind commit onto the winner's
   * as the version after it, and both entries are in the log — neither overwrote the other.
   */
  @Test
  void aConditionalPutNeverLetsASecondWriterOverwriteALogEntry() throws Exception {
    Path local = dir.resolve("t");
    DeltaSpark.sql("CREATE TABLE " + DeltaSpark.table(local) + " (id BIGINT) USING delta");
    try (S3Bucket s3 = new S3Bucket("race", false);
        ConditionalPutFront front = new ConditionalPutFront(s3.endpoint())) {
      String location = s3.upload(local, "t");
      Map<String, String> props = new HashMap<>(s3.properties());
      props.put("s3.endpoint", front.endpoint());
      ResurfacerConfig config = new ResurfacerConfig(
          Map.of(
              "deltas",
              new CatalogConfig(
                  "deltas", "delta", null, null, props, Set.of(), Map.of("t.t", location))),
          null);
      try (DeltaTable first = DeltaTables.find("t.t", config, dir).orElseThrow();
          DeltaTable second = DeltaTables.find("t.t", config, dir).orElseThrow()) {
        first.storage().requireSafeCommits();
        long base = first.latest().getVersion();
        List<io.delta.kernel.Transaction> txns = List.of(
            first
                .latest()
                .buildUpdateTableTransaction("writer-one", io.delta.kernel.Operation.WRITE)
                .build(first.engine()),
            second
                .latest()
                .buildUpdateTableTransaction("writer-two", io.delta.kernel.Operation.WRITE)
                .build(second.engine()));
        CyclicBarrier together = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<Long>> commits = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          var txn = txns.get(i);
          var engine = (i == 0 ? first : second).engine();
          commits.add(pool.submit(() -> {
            together.await(60, TimeUnit.SECONDS);
            return txn.commit(engine, io.delta.kernel.utils.CloseableIterable.emptyIterable())
                .getVersion();
          }));
        }
        Set<Long> versions = new java.util.TreeSet<>();
        for (Future<Long> f : commits) {
          versions.add(f.get(5, TimeUnit.MINUTES));
        }
        pool.shutdown();

        assertThat(versions).containsExactly(base + 1, base + 2);
        assertThat(front.refusedPuts())
            .as("the second writer's PUT of version %d was refused", base + 1)
            .isGreaterThanOrEqualTo(1);
        String one = Files.readString(
            s3.backend("t").resolve(String.format("_delta_log/%020d.json", base + 1)));
        String two = Files.readString(
            s3.backend("t").resolve(String.format("_delta_log/%020d.json", base + 2)));
        assertThat(List.of(one, two))
            .anyMatch(c -> c.contains("writer-one"))
            .anyMatch(c -> c.contains("writer-two"));
      }
    }
  }

  private static Set<String> dataKeys(S3Bucket s3) throws Exception {
    return s3.keys("t").stream()
        .filter(k -> k.endsWith(".parquet") && !k.startsWith("_delta_log/"))
        .collect(Collectors.toSet());
  }
}
