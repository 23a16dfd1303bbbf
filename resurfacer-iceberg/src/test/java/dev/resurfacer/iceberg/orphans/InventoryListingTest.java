package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.iceberg.testing.Orders;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.S3Server;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.OutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileInfo;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * remove-orphans reading an S3 Inventory report (the real format: manifest.json, gzip CSV or
 * Parquet data files with S3's column names, CSV keys URL-encoded, noncurrent versions and delete
 * markers in the rows) or a plain list from s3proxy, instead of listing the bucket: the same
 * candidates as a live listing; a file committed after the report is kept; a report that claims a
 * time after a commit it misses refuses as a partial listing; an age guard short of the report's
 * age refuses.
 */
class InventoryListingTest {
  @RegisterExtension
  static final S3Server S3 = new S3Server("inventoried");

  static final MessageType PARQUET = MessageTypeParser.parseMessageType(
      "message s3.inventory { required binary bucket (STRING);"
          + " required binary key (STRING); optional binary version_id (STRING); optional boolean is_latest;"
          + " optional boolean is_delete_marker; optional int64 size; optional int64 last_modified_date (TIMESTAMP(MILLIS,true)); }");

  @TempDir
  Path dir;

  Catalog catalog;
  Table table;
  TableIdentifier id;
  S3FileIO io;
  List<String> strays = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    Map<String, String> props = new HashMap<>(S3.clientProperties());
    catalog = Catalogs.open(new CatalogConfig(
        "lake",
        "jdbc",
        SqliteCatalogs.uri(dir),
        S3.warehouse(dir.getFileName().toString()),
        props,
        Set.of()));
    ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
    id = TableIdentifier.of("db", "t");
    table = Orders.create(catalog, "db", "t", 2);
    for (int day = 0; day < 3; day++) {
      var append = table.newAppend();
      TableWrites.writeData(table, Orders.rows(day * 10L, 10, day)).forEach(append::appendFile);
      append.commit();
    }
    io = S3.fileIO();
    // failed writers' leftovers, two days old; one with a name S3 Inventory's CSV encodes
    for (String name : List.of("stray-a.parquet", "stray b+c=%.parquet", "stray-é.parquet")) {
      String stray = table.location() + "/data/" + name;
      try (OutputStream out = io.newOutputFile(stray).create()) {
        out.write(new byte[] {1, 2, 3});
      }
      Files.setLastModifiedTime(
          S3.localFile(stray), FileTime.from(Instant.now().minus(Duration.ofDays(2))));
      strays.add(stray);
    }
    // a young stray: unreferenced but inside the age guard
    try (OutputStream out =
        io.newOutputFile(table.location() + "/data/young.parquet").create()) {
      out.write(new byte[] {4});
    }
    table.refresh();
  }

  @AfterEach
  void tearDown() throws Exception {
    io.close();
    ((Closeable) catalog).close();
  }

  private OrphanRemoval removal() {
    return OrphanRemoval.of(catalog, id, table).olderThan(Duration.ofDays(1)).show(1000);
  }

  private static Set<String> candidates(OrphanReport r) {
    Set<String> out = new TreeSet<>();
    r.orphans().forEach(f -> out.add(f.location()));
    return out;
  }

  /** The bucket as S3 lists it now: every object, as an inventory row would have it. */
  private List<FileInfo> bucket() {
    List<FileInfo> out = new ArrayList<>();
    io.listPrefix("s3://" + S3.bucket() + "/").forEach(out::add);
    return out;
  }

  /** The table location's key in the bucket. */
  private String tableKey() {
    return table.location().substring(("s3://" + S3.bucket() + "/").length());
  }

  private String csvReport(List<FileInfo> rows, long takenAt, String name) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (OutputStream gz = new GZIPOutputStream(bytes)) {
      StringBuilder b = new StringBuilder();
      for (FileInfo f : rows) {
        String key = f.location().substring(("s3://" + S3.bucket() + "/").length());
        b.append('"')
            .append(S3.bucket())
            .append("\",\"")
            .append(URLEncoder.encode(key, StandardCharsets.UTF_8))
            .append("\",\"\",\"true\",\"false\",\"")
            .append(f.size())
            .append("\",\"")
            .append(Instant.ofEpochMilli(f.createdAtMillis()))
            .append("\",\"etag\",\"STANDARD\"\n");
      }
      // a noncurrent version and a delete marker of keys that are gone: never files to delete
      b.append('"')
          .append(S3.bucket())
          .append("\",\"")
          .append(URLEncoder.encode(tableKey() + "/data/old.parquet", StandardCharsets.UTF_8))
          .append(
              "\",\"v1\",\"false\",\"false\",\"3\",\"2020-01-01T00:00:00.000Z\",\"e\",\"STANDARD\"\n");
      gz.write(b.toString().getBytes(StandardCharsets.UTF_8));
    }
    String data = "inventory/" + S3.bucket() + "/cfg/data/" + name + ".csv.gz";
    put(data, bytes.toByteArray());
    return manifest(
        name,
        takenAt,
        "CSV",
        "Bucket, Key, VersionId, IsLatest, IsDeleteMarker, Size, LastModifiedDate, ETag, StorageClass",
        data,
        bytes.size());
  }

  private String parquetReport(List<FileInfo> rows, long takenAt, String name) throws Exception {
    Path local = dir.resolve(name + ".parquet");
    SimpleGroupFactory groups = new SimpleGroupFactory(PARQUET);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(local))
        .withType(PARQUET)
        .withConf(new Configuration())
        .build()) {
      for (FileInfo f : rows) {
        w.write(groups
            .newGroup()
            .append("bucket", S3.bucket())
            .append("key", f.location().substring(("s3://" + S3.bucket() + "/").length()))
            .append("is_latest", true)
            .append("is_delete_marker", false)
            .append("size", f.size())
            .append("last_modified_date", f.createdAtMillis()));
      }
      w.write(groups
          .newGroup()
          .append("bucket", S3.bucket())
          .append("key", tableKey() + "/data/gone.parquet")
          .append("version_id", "v2")
          .append("is_latest", true)
          .append("is_delete_marker", true)
          .append("last_modified_date", 1L));
    }
    byte[] bytes = Files.readAllBytes(local);
    String data = "inventory/" + S3.bucket() + "/cfg/data/" + name + ".parquet";
    put(data, bytes);
    return manifest(name, takenAt, "Parquet", PARQUET.toString(), data, bytes.length);
  }

  private String manifest(
      String name, long takenAt, String format, String schema, String dataKey, long size)
      throws Exception {
    String json = "{\n  \"sourceBucket\" : \"" + S3.bucket()
        + "\",\n  \"destinationBucket\" : \"arn:aws:s3:::" + S3.bucket()
        + "\",\n  \"version\" : \"2016-11-30\",\n  \"creationTimestamp\" : \"" + takenAt
        + "\",\n  \"fileFormat\" : \"" + format
        + "\",\n  \"fileSchema\" : \"" + schema.replace("\n", " ").replace("\"", "\\\"")
        + "\",\n  \"files\" : [ {\n    \"key\" : \""
        + dataKey + "\",\n    \"size\" : " + size + ",\n    \"MD5checksum\" : \"0\"\n  } ]\n}\n";
    String key = "inventory/" + S3.bucket() + "/cfg/" + name + "/manifest.json";
    put(key, json.getBytes(StandardCharsets.UTF_8));
    return "s3://" + S3.bucket() + "/" + key;
  }

  private void put(String key, byte[] bytes) throws Exception {
    try (OutputStream out =
        io.newOutputFile("s3://" + S3.bucket() + "/" + key).createOrOverwrite()) {
      out.write(bytes);
    }
  }

  @Test
  void aReportGivesTheCandidatesOfALiveListingAndDeletesThem() throws Exception {
    OrphanReport live = removal().plan();
    assertThat(candidates(live)).containsExactlyInAnyOrderElementsOf(strays);
    assertThat(live.census().keptTooYoung().files()).isEqualTo(1);

    long takenAt = System.currentTimeMillis() - 1000;
    List<FileInfo> rows = bucket();
    Path plain = dir.resolve("listing.tsv");
    StringBuilder b = new StringBuilder("# taken-at: " + Instant.ofEpochMilli(takenAt) + "\n");
    rows.forEach(f -> b.append(f.location())
        .append('\t')
        .append(f.size())
        .append('\t')
        .append(f.createdAtMillis())
        .append('\n'));
    Files.writeString(plain, b);
    for (String listing : List.of(
        csvReport(rows, takenAt, "csv"),
        parquetReport(rows, takenAt, "parquet"),
        plain.toString())) {
      OrphanReport fromListing =
          removal().listing(Inventory.open(listing, table.io())).plan();
      assertThat(candidates(fromListing)).as(listing).isEqualTo(candidates(live));
      assertThat(fromListing.census().listed().files())
          .as(listing)
          .isEqualTo(live.census().listed().files());
      assertThat(fromListing.census().keptTooYoung().files())
          .isEqualTo(live.census().keptTooYoung().files());
      assertThat(fromListing.listing().entriesOutsideScope())
          .as("the report's own files")
          .isPositive();
    }

    List<String> before = Rows.sortedStrings(table);
    OrphanReport done = removal()
        .listing(Inventory.open(csvReport(rows, takenAt, "csv"), table.io()))
        .execute();
    assertThat(done.removed().deleted().files()).isEqualTo(strays.size());
    for (String stray : strays) {
      assertThat(io.newInputFile(stray).exists()).as(stray).isFalse();
    }
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    assertThat(removal().plan().census().orphans().files()).isZero();
  }

  @Test
  void aCommitAfterTheReportIsKeptAndAReportThatClaimsToBeNewerThanItRefuses() throws Exception {
    long takenAt = System.currentTimeMillis() - 1000;
    List<FileInfo> rows = bucket();
    var append = table.newAppend();
    TableWrites.writeData(table, Orders.rows(100, 10, 0)).forEach(append::appendFile);
    append.commit();
    table.refresh();

    // honest: the new commit's files are dated after the report, so their absence is expected
    OrphanReport honest = removal()
        .listing(Inventory.open(parquetReport(rows, takenAt, "before-commit"), table.io()))
        .plan();
    assertThat(candidates(honest)).containsExactlyInAnyOrderElementsOf(strays);

    // stale: the same rows under a time after the commit: a referenced file older than the report
    // is missing from it
    long claimed = System.currentTimeMillis() + 1000;
    Thread.sleep(1200);
    String stale = csvReport(rows, claimed, "stale");
    assertThatThrownBy(
            () -> removal().listing(Inventory.open(stale, table.io())).execute())
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("partial listing");
    for (String stray : strays) {
      assertThat(io.newInputFile(stray).exists())
          .as("nothing deleted: " + stray)
          .isTrue();
    }
  }

  @Test
  void anAgeGuardShortOfTheReportsAgeRefuses() throws Exception {
    String old =
        csvReport(bucket(), System.currentTimeMillis() - Duration.ofDays(2).toMillis(), "old");
    assertThatThrownBy(() -> removal().listing(Inventory.open(old, table.io())).execute())
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("raise --older-than above the listing's age");
    OrphanReport ok = removal()
        .olderThan(Duration.ofDays(3))
        .listing(Inventory.open(old, table.io()))
        .plan();
    assertThat(ok.census().orphans().files())
        .as("the strays are 2 days old: inside a 3-day guard")
        .isZero();
    for (String stray : strays) {
      assertThat(io.newInputFile(stray).exists()).isTrue();
    }
  }
}
