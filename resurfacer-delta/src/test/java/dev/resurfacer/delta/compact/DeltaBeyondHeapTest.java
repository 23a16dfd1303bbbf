package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTables;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bin larger than the heap compacts: a child JVM with a 96 MB heap z-orders and bin-packs one
 * bin of more Parquet than its heap (several times more once decoded), deletion vectors applied,
 * and Spark reads the same content afterwards.
 */
class DeltaBeyondHeapTest {
  private static final long HEAP = 96L << 20;

  @TempDir
  static Path shared;

  @TempDir
  Path dir;

  private static Path source;
  private static long sourceBytes;
  private static String sourceContent;

  @BeforeAll
  static void writeTable() {
    source = shared.resolve("big");
    String t = DeltaSpark.table(source);
    DeltaSpark.sql("CREATE TABLE " + t + " (id BIGINT, h STRING, g STRING, v DOUBLE) USING delta"
        + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
    // hashes do not compress: about 150 bytes of Parquet a row
    DeltaSpark.sql("INSERT INTO " + t
        + " SELECT id, sha2(CAST(id AS STRING), 256), sha2(CAST(id * 7 AS STRING), 256),"
        + " CAST(id * 7919 % 1000003 AS DOUBLE) / 3 FROM range(0, 900000, 1, 8)");
    DeltaSpark.sql("DELETE FROM " + t + " WHERE id % 10 = 0");
    var table = DeltaTables.open("big", source.toString(), shared);
    sourceBytes =
        LiveFiles.of(table, table.latest()).stream().mapToLong(LiveFile::size).sum();
    sourceContent = content(source);
  }

  @Test
  void aZOrderBinLargerThanTheHeapCompactsInAChildJvm() throws Exception {
    Path copy = TestTables.copy(source, dir.resolve("kernel"));
    Child kernel = child(copy, "KERNEL", "h", "id");
    assertThat(kernel.exitCode()).as(kernel.out()).isEqualTo(1);
    assertThat(kernel.out())
        .as("the in-heap runner cannot take this bin")
        .contains("exceeds what the in-heap Kernel runner sorts");

    compactInChild("zorder", "h", "id");
  }

  @Test
  void aBinPackBinLargerThanTheHeapCompactsInAChildJvm() throws Exception {
    compactInChild("binpack");
  }

  private void compactInChild(String name, String... zOrder) throws Exception {
    Path copy = TestTables.copy(source, dir.resolve(name));
    assertThat(sourceBytes).as("Parquet bytes of the one bin").isGreaterThan(HEAP);

    Child duck = child(copy, "AUTO", zOrder);
    assertThat(duck.exitCode()).as(duck.out()).isZero();
    assertThat(duck.out()).contains("runner=duckdb").contains("failed=[]");

    var table = DeltaTables.open(name, copy.toString(), dir);
    List<LiveFile> after = LiveFiles.of(table, table.latest());
    assertThat(after).hasSize(1).allMatch(f -> f.deletionVector().isEmpty());
    assertThat(content(copy)).isEqualTo(sourceContent);
  }

  private record Child(int exitCode, String out) {}

  /** Compacts {@code table} in a JVM with a {@value #HEAP}-byte heap and a 256 MB DuckDB memory limit, into 1 GB files. */
  private static Child child(Path table, String runner, String... zOrder) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + (HEAP >> 20) + "m",
        "-cp",
        System.getProperty("java.class.path"),
        CompactInChildJvm.class.getName(),
        table.toString(),
        String.valueOf(256L << 20),
        String.valueOf(1L << 30),
        runner));
    cmd.addAll(List.of(zOrder));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
    return new Child(p.exitValue(), out);
  }

  /** Spark's count and order-independent sums of a type-sensitive hash of every row and of each column. */
  private static String content(Path table) {
    return DeltaSpark.session()
        .sql(
            "SELECT count(*), sum(CAST(xxhash64(id, h, g, v) AS DECIMAL(38, 0))), sum(CAST(xxhash64(h) AS DECIMAL(38, 0))),"
                + " min(id), max(id) FROM "
                + DeltaSpark.table(table))
        .collectAsList()
        .get(0)
        .toString();
  }
}
