package dev.resurfacer.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The canonical form's promise, checked on generated spellings: every spelling of one file has one
 * key. Each property runs a few thousand seeded cases; a failure names its seed.
 */
class StoredFileTest {
  static final int CASES = Integer.getInteger("resurfacer.storedfile.cases", 3000);
  static final String NAME_CHARS = "abcXYZ019-_=:é ~+%";

  @TempDir
  Path dir;

  @Test
  void everySyntacticSpellingOfAPathHasOneKey() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int i = 0; i < CASES; i++) {
      List<String> segments = randomSegments(random);
      String canonical = String.join("/", segments);
      boolean s3 = random.nextBoolean();
      String expected =
          StoredFile.parse((s3 ? "s3://bucket/" : "/") + canonical).key();
      String spelled = spell(random, segments, s3);
      assertThat(StoredFile.parse(spelled).key())
          .as("seed %d case %d: %s", seed, i, spelled)
          .isEqualTo(expected);
    }
  }

  /** Azure: four schemes, the Blob and the Data Lake host of one account, any case of the authority. */
  @Test
  void everySpellingOfAnAzureObjectHasOneKey() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int i = 0; i < CASES; i++) {
      List<String> segments = randomSegments(random);
      String suffix = List.of("core.windows.net", "core.chinacloudapi.cn").get(random.nextInt(2));
      String expected = StoredFile.parse(
              "abfss://lake@acct1.dfs." + suffix + "/" + String.join("/", segments))
          .key();
      StringBuilder b = new StringBuilder()
          .append(
              List.of("abfs", "abfss", "wasb", "wasbs", "ABFSS", "Wasbs").get(random.nextInt(6)))
          .append("://")
          .append(randomCase(
              random, "lake@acct1." + (random.nextBoolean() ? "blob." : "dfs.") + suffix));
      String spelled = spellPath(random, segments, b);
      assertThat(StoredFile.parse(spelled).key())
          .as("seed %d case %d: %s", seed, i, spelled)
          .isEqualTo(expected);
    }
  }

  /** Cloud Storage: bucket names are lower-case by the service's rules, object names keep their case. */
  @Test
  void everySpellingOfACloudStorageObjectHasOneKey() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int i = 0; i < CASES; i++) {
      List<String> segments = randomSegments(random);
      String expected =
          StoredFile.parse("gs://my-bucket/" + String.join("/", segments)).key();
      String spelled = spellPath(
          random,
          segments,
          new StringBuilder(random.nextBoolean() ? "gs://" : "GS://")
              .append(randomCase(random, "my-bucket")));
      assertThat(StoredFile.parse(spelled).key())
          .as("seed %d case %d: %s", seed, i, spelled)
          .isEqualTo(expected);
    }
  }

  @Test
  void cloudLocationsThatAreDifferentPlacesStayApart() {
    String path = "/wh/db/t/data/f.parquet";
    List<String> distinct = List.of(
        "abfss://lake@acct1.dfs.core.windows.net" + path,
        "abfss://lake@acct2.dfs.core.windows.net" + path, // another account
        "abfss://other@acct1.dfs.core.windows.net" + path, // another container
        "abfss://lake@acct1.dfs.core.chinacloudapi.cn" + path, // another cloud
        "abfss://lake@127.0.0.1:10000" + path, // an emulator's host is not an account's
        "s3://lake" + path,
        "gs://lake" + path,
        "gs://acct1" + path);
    assertThat(distinct.stream().map(l -> StoredFile.parse(l).prefix()).distinct())
        .hasSize(distinct.size());
    // object names keep their case on every store
    assertThat(StoredFile.parse("gs://b/W/T").key())
        .isNotEqualTo(StoredFile.parse("gs://b/w/t").key());
    assertThat(StoredFile.parse("wasbs://c@a.blob.core.windows.net/W").key())
        .isNotEqualTo(StoredFile.parse("abfss://c@a.dfs.core.windows.net/w").key());
    // a neighbour table under another spelling is still inside the scope, and a sibling prefix
    // never is
    StoredFile scope = StoredFile.parse("abfss://lake@acct1.dfs.core.windows.net/wh/db/t");
    assertThat(scope.contains(StoredFile.parse(
            "WASB://LAKE@ACCT1.blob.core.windows.net/wh/db/t/nested/_delta_log/0.json")))
        .isTrue();
    assertThat(scope.contains(
            StoredFile.parse("wasbs://lake@acct1.blob.core.windows.net/wh/db/t2/data/f")))
        .isFalse();
    assertThat(scope.contains(
            StoredFile.parse("abfs://lake@acct1.dfs.core.windows.net/wh/db/t/../t2/f")))
        .isFalse();
    assertThat(scope.contains(
            StoredFile.parse("abfs://lake@acct1.dfs.core.windows.net/wh/db/t%2F..%2Ft2/f")))
        .isFalse();
    assertThat(
            scope.contains(StoredFile.parse("abfs://lake@acct1.dfs.core.windows.net/wh/db/%74/f")))
        .isTrue();
  }

  static String randomCase(Random random, String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (char c : s.toCharArray()) {
      b.append(random.nextBoolean() ? Character.toUpperCase(c) : c);
    }
    return b.toString();
  }

  @Test
  void schemesAndAuthoritiesThatDifferStayApart() {
    assertThat(StoredFile.parse("s3://other/w/t").key())
        .isNotEqualTo(StoredFile.parse("s3://bucket/w/t").key());
    assertThat(StoredFile.parse("gs://bucket/w/t").key())
        .isNotEqualTo(StoredFile.parse("s3://bucket/w/t").key());
    assertThat(StoredFile.parse("file://otherhost/w").key())
        .isNotEqualTo(StoredFile.parse("/w").key());
    assertThat(StoredFile.parse("hdfs://nn:8020/w").prefix()).isEqualTo("hdfs://nn:8020");
  }

  @Test
  void containsIsPerSegment() {
    StoredFile t = StoredFile.parse("s3://b/w/t");
    assertThat(t.contains(StoredFile.parse("s3a://b/w/t/data/x"))).isTrue();
    assertThat(t.contains(StoredFile.parse("s3://b/w/t"))).isTrue();
    assertThat(t.contains(StoredFile.parse("s3://b/w/t2/data/x"))).isFalse();
    assertThat(t.contains(StoredFile.parse("s3://b/w/t/../t2/x"))).isFalse();
    assertThat(t.contains(StoredFile.parse("s3://c/w/t/data/x"))).isFalse();
  }

  @Test
  void anEscapedSlashNeverSplitsASegment() {
    assertThat(StoredFile.parse("/w/a%2Fb/x").path()).isEqualTo("/w/a%2Fb/x");
    assertThat(StoredFile.parse("/w/a%2fb/x").path()).isEqualTo("/w/a%2Fb/x");
    assertThat(StoredFile.parse("/w/%2E%2E/x").path())
        .isEqualTo("/w/../x"); // an escaped dot is a name, not a step up
  }

  @Test
  void relativeAndEmptyLocationsAreRefused() {
    assertThatThrownBy(() -> StoredFile.parse("warehouse/db/t")).isInstanceOf(SafetyRefusal.class);
    assertThatThrownBy(() -> StoredFile.parse(" ")).isInstanceOf(SafetyRefusal.class);
  }

  @Test
  void everySpellingThroughLinksResolvesToTheRealFile() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    Path real = Files.createDirectories(dir.resolve("real/wh/db/t/data/cat=a"));
    Path file = Files.writeString(real.resolve("f.parquet"), "x");
    Files.createSymbolicLink(dir.resolve("wh-link"), dir.resolve("real/wh")); // a linked warehouse
    Files.createSymbolicLink(
        dir.resolve("real/wh/db/t/data/latest"), real); // a linked data directory
    Files.createSymbolicLink(dir.resolve("real/wh/db/t/data/one.parquet"), file); // a linked file
    Files.createSymbolicLink(dir.resolve("rel-link"), Path.of("real/wh/db")); // a relative link
    Files.createDirectories(dir.resolve("real/wh/db/x"));
    String key = new StoredFile.Resolver().resolve(file.toRealPath().toString()).key();
    List<String> spellings = List.of(
        dir + "/wh-link/db/t/data/cat=a/f.parquet",
        dir + "/real/wh/db/t/data/latest/f.parquet",
        dir + "/real/wh/db/t/data/one.parquet",
        dir + "/rel-link/t/data/cat=a/f.parquet",
        dir + "/real/wh/db/x/../t/data/cat=a/f.parquet",
        dir + "/wh-link/db/t/data/latest/../cat=a/./f.parquet",
        dir + "/real/wh/db/t/data/cat%3Da/f.parquet");
    for (int i = 0; i < CASES / 10; i++) {
      String s = spellings.get(random.nextInt(spellings.size()));
      String spelled = switch (random.nextInt(3)) {
        case 0 -> s;
        case 1 -> "file:" + s;
        default -> "file://" + s.replace("/real/", "//real/");
      };
      assertThat(new StoredFile.Resolver().resolve(spelled).key())
          .as("seed %d: %s", seed, spelled)
          .isEqualTo(key);
    }
  }

  @Test
  void aFileThatDoesNotExistYetResolvesThroughItsDeepestExistingDirectory() throws Exception {
    Files.createDirectories(dir.resolve("real/wh"));
    Files.createSymbolicLink(dir.resolve("wh-link"), dir.resolve("real/wh"));
    StoredFile.Resolver r = new StoredFile.Resolver();
    assertThat(r.resolve(dir + "/wh-link/db/t/new/../f.parquet").key())
        .isEqualTo(r.resolve(dir.toRealPath() + "/real/wh/db/t/f.parquet").key());
  }

  /** A path already decoded (Delta's): its key keeps the disk's spelling, and a {@code ..} after a link has both meanings, Hadoop's first. */
  @Test
  void aPathAsTheDiskSpellsItIsNotDecodedAgainAndKeepsBothMeaningsOfADotDot() throws Exception {
    Path real = dir.toRealPath();
    Path file = Files.writeString(
        Files.createDirectories(real.resolve("t/part=x%25y")).resolve("f.parquet"), "x");
    Files.createDirectories(real.resolve("t/deep/sub"));
    Files.createSymbolicLink(real.resolve("alias"), real.resolve("t"));
    Files.createSymbolicLink(real.resolve("t/lnk"), Path.of("deep/sub"));
    StoredFile.Resolver r = new StoredFile.Resolver();

    assertThat(r.resolveAllOnDisk(real.resolve("alias/part=x%25y/./f.parquet")))
        .containsExactly(new StoredFile("file", "", file.toString()));
    assertThat(r.resolveAllOnDisk(real.resolve("t/lnk/../part=x%25y/f.parquet")))
        .containsExactly(
            new StoredFile("file", "", file.toString()),
            new StoredFile(
                "file", "", real.resolve("t/deep/part=x%25y/f.parquet").toString()));
  }

  static List<String> randomSegments(Random random) {
    List<String> out = new ArrayList<>();
    int n = 1 + random.nextInt(6);
    for (int i = 0; i < n; i++) {
      StringBuilder b = new StringBuilder();
      int len = 1 + random.nextInt(8);
      for (int j = 0; j < len; j++) {
        char c = NAME_CHARS.charAt(random.nextInt(NAME_CHARS.length()));
        b.append(
            c == '%'
                ? "%25"
                : String.valueOf(c)); // a literal percent is spelled escaped in the canonical text
      }
      String seg = b.toString();
      out.add(seg.equals(".") || seg.equals("..") ? "d" + seg : seg);
    }
    return out;
  }

  /** Another spelling of the same path: scheme variants, dot segments, repeated and trailing slashes, escapes. */
  static String spell(Random random, List<String> segments, boolean s3) {
    StringBuilder b = new StringBuilder();
    if (s3) {
      b.append(List.of("s3://", "s3a://", "s3n://", "S3://").get(random.nextInt(4)))
          .append("bucket");
    } else {
      b.append(List.of("", "file:", "file://", "file://localhost", "FILE:").get(random.nextInt(5)));
    }
    return spellPath(random, segments, b);
  }

  /** {@code segments} appended to a scheme and authority as spelled, with dot segments, repeated slashes and escapes. */
  static String spellPath(Random random, List<String> segments, StringBuilder b) {
    boolean first = true;
    for (String seg : segments) {
      // after "file:" a double slash starts an authority, so the first separator there stays single
      boolean schemeOnly = first && (b.toString().equalsIgnoreCase("file:"));
      b.append(random.nextInt(5) == 0 && !schemeOnly ? "//" : "/");
      first = false;
      if (random.nextInt(6) == 0) {
        b.append("./");
      }
      if (random.nextInt(6) == 0) {
        b.append("detour/../");
      }
      b.append(random.nextInt(3) == 0 ? escape(seg, random) : seg);
    }
    if (random.nextInt(4) == 0) {
      b.append('/');
    }
    return b.toString();
  }

  static String escape(String segment, Random random) {
    StringBuilder b = new StringBuilder();
    int i = 0;
    while (i < segment.length()) {
      if (segment.startsWith("%25", i)) {
        b.append("%25");
        i += 3;
        continue;
      }
      int cp = segment.codePointAt(i);
      String ch = new String(Character.toChars(cp));
      if (random.nextBoolean()) {
        for (byte x : ch.getBytes(StandardCharsets.UTF_8)) {
          b.append('%').append(String.format(random.nextBoolean() ? "%02X" : "%02x", x & 0xff));
        }
      } else {
        b.append(ch);
      }
      i += Character.charCount(cp);
    }
    return b.toString();
  }
}
