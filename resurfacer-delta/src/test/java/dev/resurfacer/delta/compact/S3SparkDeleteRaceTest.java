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
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A delta-spark DELETE on {@code s3a://} racing our compaction of the same table on {@code s3://}:
 * the DELETE commits after one of our bins was written and verified and before that bin commits —
 * the window any concurrent writer hits. We commit through a store that honours conditional PUTs
 * (s3proxy behind {@link ConditionalPutFront}); Spark writes the same objects directly. Whichever
 * commits first, Spark reads the table without the deleted rows afterwards. (Spark and us writing the
 * same log version at one instant is not tested: Spark's default S3 log store is single-writer, see
 * docs/delta.md.)
 */
@Tag("nightly") // the same race on local storage runs in every build (DeltaCompactorTest)
class S3SparkDeleteRaceTest {
  private static final String SOURCE = "source/t";
  private static final Pattern ID = Pattern.compile("^id:bigint=(\\d+)/");
  private static S3Bucket s3;
  private static ConditionalPutFront front;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() throws Exception {
    s3 = new S3Bucket("racedelete", false).openToSpark();
    front = new ConditionalPutFront(s3.endpoint());
    String t = DeltaSpark.table(s3.s3a(SOURCE));
    DeltaSpark.sql("CREATE TABLE " + t
        + " (id BIGINT, part STRING, v STRING) USING delta PARTITIONED BY (part)"
        + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
    for (int i = 0; i < 3; i++) {
      DeltaSpark.sql("INSERT INTO " + t
          + " SELECT id, CASE WHEN id % 2 = 0 THEN 'a b' ELSE 'x%y' END, concat('v', id)"
          + " FROM range(" + i * 100 + ", " + (i * 100 + 100) + ")");
    }
    DeltaSpark.sql("DELETE FROM " + t + " WHERE id % 7 = 0");
  }

  @AfterAll
  static void stop() throws Exception {
    front.close();
    s3.close();
  }

  private DeltaTable copy(String prefix) throws Exception {
    String location = s3.copy(SOURCE, prefix);
    Map<String, String> props = new HashMap<>(s3.properties());
    props.put("s3.endpoint", front.endpoint());
    ResurfacerConfig config = new ResurfacerConfig(
        Map.of(
            "deltas",
            new CatalogConfig(
                "deltas", "delta", null, null, props, Set.of(), Map.of("t.t", location))),
        null);
    DeltaTable table = DeltaTables.find("t.t", config, dir).orElseThrow();
    assertThat(((ObjectStorage) table.storage()).conditionalPut()).isTrue();
    return table;
  }

  @Test
  void aSparkDeleteCommittedBeforeOurCommitIsCarriedOntoTheNewFiles() throws Exception {
    String spark = s3.s3a("first");
    try (DeltaTable table = copy("first")) {
      long read = table.latest().getVersion();
      List<String> before = DeltaSpark.typedRows(spark);
      Runnable deleteOnce = once(
          () -> DeltaSpark.sql("DELETE FROM " + DeltaSpark.table(spark) + " WHERE id % 5 = 1"));

      CompactionResult result = DeltaCompactor.execute(
          DeltaCompactor.plan(table, CompactionOptions.defaults()),
          Clock.systemUTC(),
          DeltaCompactor.Seam.beforeCommit(deleteOnce));

      assertThat(result.plan().bins()).hasSize(2);
      assertThat(result.failedBins()).isEmpty();
      assertThat(result.committedVersions()).containsExactly(read + 2, read + 3);
      assertThat(DeltaSpark.typedRows(spark))
          .isEqualTo(without(before, id -> id % 5 == 1))
          .hasSizeLessThan(before.size());
      assertThat(lastCommit(spark).<String>getAs("operation")).isEqualTo("OPTIMIZE");
      assertThat(LiveFiles.of(table, table.latest()))
          .as("our compacted files, carrying Spark's deletes")
          .hasSize(2)
          .allMatch(f -> f.deletionVector().isPresent());
    }
  }

  @Test
  void aSparkDeleteCommittedBetweenOurBinsLandsOnOurNewFileAndTheNextBinStillCommits()
      throws Exception {
    String spark = s3.s3a("between");
    try (DeltaTable table = copy("between")) {
      long read = table.latest().getVersion();
      List<String> before = DeltaSpark.typedRows(spark);
      String first = DeltaCompactor.plan(table, CompactionOptions.defaults())
          .preview()
          .bins()
          .get(0)
          .partition()
          .get("part");
      AtomicInteger calls = new AtomicInteger();
      // before the second bin commits, the first bin's output is the table's file for its partition
      Runnable deleteBeforeSecondCommit = () -> {
        if (calls.incrementAndGet() == 2) {
          DeltaSpark.sql("DELETE FROM " + DeltaSpark.table(spark) + " WHERE part = '" + first
              + "' AND id % 5 = 1");
        }
      };

      CompactionResult result = DeltaCompactor.execute(
          DeltaCompactor.plan(table, CompactionOptions.defaults()),
          Clock.systemUTC(),
          DeltaCompactor.Seam.beforeCommit(deleteBeforeSecondCommit));

      assertThat(result.failedBins()).isEmpty();
      assertThat(result.committedVersions()).containsExactly(read + 1, read + 3);
      List<String> expected =
          without(before, id -> id % 5 == 1 && (id % 2 == 0) == first.equals("a b"));
      assertThat(expected).hasSizeLessThan(before.size());
      assertThat(DeltaSpark.typedRows(spark)).isEqualTo(expected);
      List<String> operations = DeltaSpark.session()
          .sql("DESCRIBE HISTORY " + DeltaSpark.table(spark) + " LIMIT 3")
          .collectAsList()
          .stream()
          .map(r -> r.<Long>getAs("version") + " " + r.<String>getAs("operation"))
          .toList();
      assertThat(operations)
          .containsExactly(
              (read + 3) + " OPTIMIZE", (read + 2) + " DELETE", (read + 1) + " OPTIMIZE");
      assertThat(LiveFiles.of(table, table.latest()))
          .filteredOn(f -> first.equals(f.partitionValues().get("part")))
          .as("our one compacted file of %s, carrying Spark's deletion vector", first)
          .singleElement()
          .matches(f -> f.deletionVector().isPresent());
    }
  }

  private static Runnable once(Runnable r) {
    AtomicInteger calls = new AtomicInteger();
    return () -> {
      if (calls.incrementAndGet() == 1) {
        r.run();
      }
    };
  }

  private static List<String> without(List<String> rows, Predicate<Long> deleted) {
    return rows.stream()
        .filter(r -> {
          Matcher m = ID.matcher(r);
          assertThat(m.find()).as("an id in %s", r).isTrue();
          return !deleted.test(Long.parseLong(m.group(1)));
        })
        .collect(Collectors.toList());
  }

  private static Row lastCommit(String location) {
    return DeltaSpark.session()
        .sql("DESCRIBE HISTORY " + DeltaSpark.table(location) + " LIMIT 1")
        .collectAsList()
        .get(0);
  }
}
